#include <immintrin.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <chrono>
#include <algorithm>
#include <random>
#include <xxhash.h>
#include <xxh_x86dispatch.h>
static double cpu(){rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_utime.tv_usec*1e-6+u.ru_stime.tv_sec+u.ru_stime.tv_usec*1e-6;}
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
__attribute__((target("avx2"))) void nt_copy(char* d,const char* s,size_t n){
  size_t head=(32-(uintptr_t(d)&31))&31; if(head>n)head=n; memcpy(d,s,head); d+=head;s+=head;n-=head;
  size_t i=0; for(;i+128<=n;i+=128){ __m256i a=_mm256_loadu_si256((const __m256i*)(s+i)),b=_mm256_loadu_si256((const __m256i*)(s+i+32)),c=_mm256_loadu_si256((const __m256i*)(s+i+64)),e=_mm256_loadu_si256((const __m256i*)(s+i+96));
   _mm256_stream_si256((__m256i*)(d+i),a);_mm256_stream_si256((__m256i*)(d+i+32),b);_mm256_stream_si256((__m256i*)(d+i+64),c);_mm256_stream_si256((__m256i*)(d+i+96),e);}
  memcpy(d+i,s+i,n-i); _mm_sfence();}
uint64_t sink=0;
void verify(const char*p,size_t n){for(size_t g=0;g<n;g+=4096)sink+=XXH3_64bits(p+g,4096);}
const size_t N=64<<20;
int main(int argc,char**argv){ const char*path=argv[1]; int reps=atoi(argv[2]); bool cold=argc>3&&atoi(argv[3]);
 {int fd=open(path,O_CREAT|O_WRONLY|O_TRUNC,0644);std::vector<char> d(N);for(size_t i=0;i<N;i++)d[i]=char(i*7+i/4096);write(fd,d.data(),N);fsync(fd);close(fd);}
 char* dst=(char*)aligned_alloc(4096,N+8192)+16; memset(dst,1,N); char* bounce=(char*)aligned_alloc(4096,(1<<20)+8192);
 const char* nm[]={"cur:1M bounce,memcpy,vdst","1M bounce,vb,NT","256K bounce,vb,NT","256K dst+32,memmove,v","1M dst+32,memmove,v","slow direct 1M,v","hdf5-like one pread@2048","256K bounce,vb,memcpy"};
 const int NV=8; std::vector<double> C[NV],W[NV]; std::mt19937 rng(3);
 for(int r=0;r<reps;r++){ std::vector<int> ord(NV); for(int i=0;i<NV;i++)ord[i]=i; std::shuffle(ord.begin(),ord.end(),rng);
 for(int v:ord){ int fd=open(path,O_RDONLY); if(cold){fdatasync(fd);posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);} double c0=cpu(),t0=now();
  auto bnt=[&](size_t P,bool nt){ for(size_t a=0;a<N;a+=P){char*b=bounce+2048; pread(fd,b,P,a); if(nt){verify(b,P); nt_copy(dst+a,b,P);} else {verify(b,P); memcpy(dst+a,b,P);}}};
  auto shift=[&](size_t P){ size_t a=0; for(;a+P<N;a+=P){ pread(fd,dst+a+32,P,a); memmove(dst+a,dst+a+32,P); verify(dst+a,P);} char*b=bounce+2048; pread(fd,b,N-a,a); verify(b,N-a); memcpy(dst+a,b,N-a);};
  switch(v){
   case 0: for(size_t a=0;a<N;a+=1<<20){char*b=bounce+2048; pread(fd,b,1<<20,a); for(size_t o=0;o<(1<<20);o+=4096){memcpy(dst+a+o,b+o,4096); sink+=XXH3_64bits(dst+a+o,4096);}} break;
   case 1: bnt(1<<20,true); break;
   case 2: bnt(256<<10,true); break;
   case 3: shift(256<<10); break;
   case 4: shift(1<<20); break;
   case 5: for(size_t a=0;a<N;a+=1<<20){pread(fd,dst+a,1<<20,a); verify(dst+a,1<<20);} break;
   case 6: pread(fd,dst-16+2048,N-4096,2048); break;
   case 7: bnt(256<<10,false); break;
  }
  C[v].push_back((cpu()-c0)*1e3); W[v].push_back(64/(now()-t0)); close(fd);} }
 for(int v=0;v<NV;v++){auto c=C[v],w=W[v];std::sort(c.begin(),c.end());std::sort(w.begin(),w.end());printf("%-28s cpu ms %5.1f [%5.1f-%5.1f]  MiB/s %5.0f [%5.0f-%5.0f]\n",nm[v],c[c.size()/2],c[0],c.back(),w[w.size()/2],w[0],w.back());}
 unlink(path); fprintf(stderr,"%llu\n",(unsigned long long)sink);}
