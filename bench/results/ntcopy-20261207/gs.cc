#include <mpi.h>
#include <sys/resource.h>
#include <cstdio>
#include <filesystem>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include "cairn/store.h"
#include "cairn/array.h"
static double cpu(){rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_utime.tv_usec*1e-6+u.ru_stime.tv_sec+u.ru_stime.tv_usec*1e-6;}
int main(int argc,char**argv){MPI_Init(&argc,&argv); std::string dir=argv[1]; int reps=atoi(argv[2]); const uint64_t R=16384,C=512;
 if(!std::filesystem::exists(dir)){ std::unique_ptr<cairn::Store> st; cairn::Store::Open(cairn::Options(),dir,MPI_COMM_SELF,&st); std::vector<double> b(R*256);
  for(int h=0;h<2;h++){ for(uint64_t i=0;i<R;i++) for(uint64_t j=0;j<256;j++) b[i*256+j]=double(i*C+h*256+j); auto s=st->PutArray("a",cairn::DType::kFloat64,{R,C},{0,uint64_t(h*256)},{R,256},b.data()); if(!s.ok()){printf("%s\n",s.ToString().c_str());return 1;}}
  st->Commit(); st->Close(); }
 std::vector<double> out(R*C,-1); std::unique_ptr<cairn::Store> st; cairn::Options o; o.read_only=true; cairn::Store::Open(o,dir,MPI_COMM_SELF,&st);
 std::vector<double> T; for(int r=0;r<reps;r++){ double c0=cpu(); auto s=st->GetArray("a",{0,0},{R,C},out.data()); T.push_back((cpu()-c0)*1e3); if(!s.ok()){printf("%s\n",s.ToString().c_str());return 1;}}
 for(uint64_t e=0;e<R*C;e+=997) if(out[e]!=double(e)){printf("WRONG at %lu\n",e);return 1;}
 std::sort(T.begin(),T.end()); printf("scatter GetArray 64 MiB cpu ms %.1f [%.1f-%.1f]\n",T[T.size()/2],T[0],T.back()); MPI_Finalize();}
