#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <algorithm>
#include <vector>
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
__attribute__((target("avx2"))) void nt_copy(char* d,const char* s,size_t n){
  size_t head=(32-(uintptr_t(d)&31))&31; if(head>n)head=n; memcpy(d,s,head); d+=head;s+=head;n-=head;
  size_t i=0; for(;i+128<=n;i+=128){ __m256i a=_mm256_loadu_si256((const __m256i*)(s+i)),b=_mm256_loadu_si256((const __m256i*)(s+i+32)),c=_mm256_loadu_si256((const __m256i*)(s+i+64)),e=_mm256_loadu_si256((const __m256i*)(s+i+96));
   _mm256_stream_si256((__m256i*)(d+i),a);_mm256_stream_si256((__m256i*)(d+i+32),b);_mm256_stream_si256((__m256i*)(d+i+64),c);_mm256_stream_si256((__m256i*)(d+i+96),e);}
  memcpy(d+i,s+i,n-i); _mm_sfence();}
void nt_sse(char* d,const char* s,size_t n){
  size_t head=(16-(uintptr_t(d)&15))&15; if(head>n)head=n; memcpy(d,s,head); d+=head;s+=head;n-=head;
  size_t i=0; for(;i+64<=n;i+=64){ __m128i a=_mm_loadu_si128((const __m128i*)(s+i)),b=_mm_loadu_si128((const __m128i*)(s+i+16)),c=_mm_loadu_si128((const __m128i*)(s+i+32)),e=_mm_loadu_si128((const __m128i*)(s+i+48));
   _mm_stream_si128((__m128i*)(d+i),a);_mm_stream_si128((__m128i*)(d+i+16),b);_mm_stream_si128((__m128i*)(d+i+32),c);_mm_stream_si128((__m128i*)(d+i+48),e);}
  memcpy(d+i,s+i,n-i);}
int main(){ size_t N=64<<20, P=1<<20; char* dst=(char*)aligned_alloc(4096,N+4096)+16; char* b=(char*)aligned_alloc(4096,P+8192)+2048; memset(b,3,P); memset(dst,1,N);
 const char* nm[]={"memcpy4K","avx2nt4K","sse2nt4K","sse2nt1M"}; std::vector<double> T[4];
 for(int r=0;r<15;r++) for(int v=0;v<4;v++){ double t=now();
   for(size_t a=0;a<N;a+=P){ switch(v){case 0: for(size_t o=0;o<P;o+=4096) memcpy(dst+a+o,b+o,4096); break; case 1: for(size_t o=0;o<P;o+=4096) nt_copy(dst+a+o,b+o,4096); break; case 2: for(size_t o=0;o<P;o+=4096) nt_sse(dst+a+o,b+o,4096); _mm_sfence(); break; case 3: nt_sse(dst+a,b,P);_mm_sfence();break;} }
   T[v].push_back((now()-t)*1e3);}
 for(int v=0;v<4;v++){std::sort(T[v].begin(),T[v].end()); printf("%-9s ms per 64MiB: %.1f [%.1f-%.1f]\n",nm[v],T[v][7],T[v][0],T[v][14]);} }
