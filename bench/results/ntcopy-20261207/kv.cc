#include <mpi.h>
#include <sys/resource.h>
#include <cstdio>
#include <vector>
#include <string>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include "cairn/store.h"
static double cpu(){rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_utime.tv_usec*1e-6+u.ru_stime.tv_sec+u.ru_stime.tv_usec*1e-6;}
int main(int argc,char**argv){MPI_Init(&argc,&argv); std::string dir=argv[1]; size_t vs=atol(argv[2]); int nv=int((64<<20)/vs); int reps=atoi(argv[3]);
 if(!std::filesystem::exists(dir)){ std::unique_ptr<cairn::Store> st; cairn::Store::Open(cairn::Options(),dir,MPI_COMM_SELF,&st); std::string v(vs,'x'); for(int i=0;i<nv;i++){v[0]=char(i);st->Put("k"+std::to_string(i),v);} st->Commit(); st->Close();}
 std::vector<std::string> keys; for(int i=0;i<nv;i++) keys.push_back("k"+std::to_string(i));
 std::vector<char*> mem; std::vector<cairn::Store::ValueBuffer> bufs; for(int i=0;i<nv;i++){char*p=(char*)aligned_alloc(4096,vs+4096); memset(p,1,vs+4096); mem.push_back(p); bufs.push_back(cairn::Store::ValueBuffer{p+16,vs,0});}
 std::unique_ptr<cairn::Store> st; cairn::Options o; o.read_only=true; cairn::Store::Open(o,dir,MPI_COMM_SELF,&st);
 std::vector<double> C; for(int r=0;r<reps;r++){ std::vector<cairn::Status> ss; double c0=cpu(); auto s=st->MultiGet(keys,&bufs,&ss); C.push_back((cpu()-c0)*1e3); if(!s.ok()){printf("%s\n",s.ToString().c_str());return 1;}}
 std::sort(C.begin(),C.end()); printf("%zu B values: MultiGet cpu ms %.1f [%.1f-%.1f]\n",vs,C[C.size()/2],C[0],C.back()); MPI_Finalize();}
