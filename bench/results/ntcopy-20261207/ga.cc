#include <mpi.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cstdio>
#include <filesystem>
#include <vector>
#include <chrono>
#include <algorithm>
#include <cstdlib>
#include "cairn/store.h"
#include "cairn/array.h"
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
static double cpu(){rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_utime.tv_usec*1e-6+u.ru_stime.tv_sec+u.ru_stime.tv_usec*1e-6;}
void evict(const std::string& d){for(auto&e:std::filesystem::recursive_directory_iterator(d)){if(!e.is_regular_file())continue;int fd=open(e.path().c_str(),O_RDONLY);fdatasync(fd);posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);close(fd);}}
int main(int argc,char**argv){MPI_Init(&argc,&argv); std::string cd=argv[1], h5=argv[2]; int reps=atoi(argv[3]); bool warm=atoi(argv[4]); int only=argc>5?atoi(argv[5]):-1;
 size_t N=64<<20; std::vector<double> buf(N/8,-1.0);
 std::vector<double> W[2],C[2];
 for(int r=0;r<reps;r++) for(int v=0;v<2;v++){ if(only>=0&&v!=only)continue;
  if(!warm){evict(cd);evict(std::filesystem::path(h5).parent_path());}
  double t0=now(),c0=cpu();
  if(v==0){ std::unique_ptr<cairn::Store> st; cairn::Options o; o.read_only=true; auto s=cairn::Store::Open(o,cd,MPI_COMM_SELF,&st); if(!s.ok()){printf("%s\n",s.ToString().c_str());return 1;}
    s=st->GetArray("a",{0,0,0},{512,128,128},buf.data()); if(!s.ok()){printf("%s\n",s.ToString().c_str());return 1;} st->Close(); }
  else { int fd=open(h5.c_str(),O_RDONLY); pread(fd,buf.data(),N,2048); close(fd);}
  W[v].push_back(64/(now()-t0)); C[v].push_back((cpu()-c0)*1e3);}
 for(int v=0;v<2;v++){ if(W[v].empty())continue; auto w=W[v],c=C[v];std::sort(w.begin(),w.end());std::sort(c.begin(),c.end());printf("%s MiB/s %6.0f [%6.0f-%6.0f] cpu ms %5.1f [%5.1f-%5.1f]\n",v?"pread@2048":"cairn     ",w[w.size()/2],w[0],w.back(),c[c.size()/2],c[0],c.back());}
 MPI_Finalize();}
