// cold full read, one object per call into one reused buffer (as bench_cairn / bench_posix)
#include <mpi.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cstdio>
#include <vector>
#include <string>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <filesystem>
#include "cairn/store.h"
static double cpu(){rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_utime.tv_usec*1e-6+u.ru_stime.tv_sec+u.ru_stime.tv_usec*1e-6;}
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
void evict(const std::string& d){for(auto&e:std::filesystem::recursive_directory_iterator(d)){if(!e.is_regular_file())continue;int fd=open(e.path().c_str(),O_RDONLY);fdatasync(fd);posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);close(fd);}}
int main(int argc,char**argv){MPI_Init(&argc,&argv); std::string dir=argv[1]; size_t vs=atol(argv[2]); int nv=int((64<<20)/vs); int reps=atoi(argv[3]); bool warm=argc>4&&atoi(argv[4]);
 std::string plain=dir+".plain";
 if(!std::filesystem::exists(dir)){ std::unique_ptr<cairn::Store> st; cairn::Store::Open(cairn::Options(),dir,MPI_COMM_SELF,&st); std::string v(vs,'x'); for(int i=0;i<nv;i++){v[0]=char(i);st->Put("k"+std::to_string(i),v);} st->Commit(); st->Close();
  int fd=open(plain.c_str(),O_CREAT|O_WRONLY|O_TRUNC,0644); for(int i=0;i<nv;i++){v[0]=char(i); (void)!write(fd,v.data(),vs);} fsync(fd); close(fd);}
 std::vector<std::vector<std::string>> keys(nv); for(int i=0;i<nv;i++) keys[i].push_back("k"+std::to_string(i));
 char* buf=(char*)aligned_alloc(4096,vs); memset(buf,1,vs);
 std::vector<double> CW,CC,PW,PC; std::vector<cairn::Store::ValueBuffer> bufs(1); std::vector<cairn::Status> ss;
 for(int r=0;r<reps;r++){
  if(!warm) evict(dir); { double t0=now(),c0=cpu(); std::unique_ptr<cairn::Store> st; cairn::Options o; o.read_only=true; cairn::Store::Open(o,dir,MPI_COMM_SELF,&st);
   for(int i=0;i<nv;i++){ bufs[0]={buf,vs,0}; auto s=st->MultiGet(keys[i],&bufs,&ss); if(!s.ok()) {printf("%s\n",s.ToString().c_str()); return 1;}} st->Close(); CW.push_back(64/(now()-t0)); CC.push_back((cpu()-c0)*1e3);}
  if(!warm){int fd=open(plain.c_str(),O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED); close(fd);}
  { double t0=now(),c0=cpu(); int fd=open(plain.c_str(),O_RDONLY); for(int i=0;i<nv;i++) (void)!pread(fd,buf,vs,off_t(i)*vs); close(fd); PW.push_back(64/(now()-t0)); PC.push_back((cpu()-c0)*1e3);} }
 auto med=[](std::vector<double> v){std::sort(v.begin(),v.end());return v[v.size()/2];};
 printf("%8zu B x %5d %s: cairn %5.0f MiB/s cpu %5.1f ms | posix %5.0f MiB/s cpu %5.1f ms\n",vs,nv,warm?"warm":"cold",med(CW),med(CC),med(PW),med(PC)); MPI_Finalize();}
