#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <chrono>
#include <algorithm>
#include <random>
#include <xxhash.h>
#include <xxh_x86dispatch.h>
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
uint64_t sink=0;
const size_t N=64<<20;
int main(int argc,char**argv){ const char*path=argv[1]; int reps=atoi(argv[2]);
 {int fd=open(path,O_CREAT|O_WRONLY|O_TRUNC,0644);std::vector<char> d(N,3);(void)!write(fd,d.data(),N);fsync(fd);close(fd);}
 char* dst=(char*)aligned_alloc(4096,N);memset(dst,1,N);
 struct V{const char*name; size_t req; size_t wn; bool verify;};
 V vs[]={{"64K verify",65536,0,true},{"256K verify",256<<10,0,true},{"1M verify",1<<20,0,true},{"16M verify",16<<20,0,true},{"16M verify WN16M",16<<20,16<<20,true},{"1M verify WN2M",1<<20,2<<20,true},{"4M verify",4<<20,0,true},{"64K noverify (posix)",65536,0,false}};
 int nv=8; std::vector<std::vector<double>> W(nv); std::mt19937 rng(5);
 for(int r=0;r<reps;r++){ std::vector<int> o(nv); for(int i=0;i<nv;i++)o[i]=i; std::shuffle(o.begin(),o.end(),rng);
  for(int v:o){ int fd=open(path,O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED); double t=now(); size_t advised=0;
   for(size_t a=0;a<N;a+=vs[v].req){ if(vs[v].wn){ size_t want=std::min(N,a+vs[v].req+vs[v].wn); if(want>advised){ size_t from=std::max(advised,a+vs[v].req); if(want>from) posix_fadvise(fd,from,want-from,POSIX_FADV_WILLNEED); advised=want;}}
    (void)!pread(fd,dst+a,vs[v].req,a); if(vs[v].verify) for(size_t g=0;g<vs[v].req;g+=65536) sink+=XXH3_64bits(dst+a+g,65536);}
   W[v].push_back(64/(now()-t)); close(fd);} }
 for(int v=0;v<nv;v++){auto w=W[v];std::sort(w.begin(),w.end());printf("%-24s MiB/s %5.0f [%5.0f-%5.0f]\n",vs[v].name,w[w.size()/2],w[0],w.back());}
 fprintf(stderr,"%llu\n",(unsigned long long)sink); unlink(path);}
