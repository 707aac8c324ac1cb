#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){
  size_t big=256<<20; char*b=aligned_alloc(4096,big); memset(b,7,big);
  size_t sizes[]={4096,65536,1<<20,4<<20,16<<20,64<<20};
  for(int i=0;i<6;i++){size_t n=sizes[i]; unsigned long long h=0; int reps=(int)((1ull<<31)/n);
    // hot: same buffer
    double t0=now(); for(int r=0;r<reps;r++) h+=XXH3_64bits(b,n); double hot=now()-t0;
    // cold: walk the 256 MiB buffer
    t0=now(); size_t off=0; for(int r=0;r<reps;r++){ h+=XXH3_64bits(b+off,n); off+=n; if(off+n>big) off=0;} double cold=now()-t0;
    printf("%8zu B: hot %5.1f GB/s  streaming %5.1f GB/s (%llx)\n",n,reps*n/hot/1e9,reps*n/cold/1e9,h&0xf);}
}
