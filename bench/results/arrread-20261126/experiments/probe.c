#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  const char*path=argv[1]; long off=atol(argv[2]); long len=atol(argv[3]); int mode=atoi(argv[4]);
  long req=atol(argv[5]); long ahead=argc>6?atol(argv[6]):0;
  int fd=open(path,O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  char*buf=malloc(len); memset(buf,1,len);
  unsigned long long h=0; double t0=now();
  long advised=off;
  for(long p=0;p<len;p+=req){
    long n=req<len-p?req:len-p;
    if(mode==1){ /* sliding WILLNEED: keep `ahead` bytes advised beyond this request */
      long want=off+p+n+ahead; if(want>off+len) want=off+len;
      if(want>advised && (want-advised)>=ahead/2){ if(advised<off+p+n) advised=off+p+n; posix_fadvise(fd,advised,want-advised,POSIX_FADV_WILLNEED); advised=want;}
    }
    if(mode==2 && (p % ahead)==0){ /* window: advise the next window at the start of each */
      long ws=off+p+ahead; if(ws<off+len){ long wl=ahead; if(ws+wl>off+len) wl=off+len-ws; posix_fadvise(fd,ws,wl,POSIX_FADV_WILLNEED);} }
    if(mode==3 && p==0) readahead(fd,off,len);
    pread(fd,buf+p,n,off+p);
    for(long q=0;q<n;q+=4096) h^=XXH3_64bits(buf+p+q,4096);
  }
  double t=now()-t0; printf("%.1f MiB/s %.1f ms\n",len/1048576.0/t,t*1e3); return h==42;
}
