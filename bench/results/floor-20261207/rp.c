#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include <sys/resource.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double cpu(){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec+r.ru_stime.tv_sec+(r.ru_utime.tv_usec+r.ru_stime.tv_usec)*1e-6;}
int main(int argc,char**argv){
  const char*path=argv[1]; size_t req=atol(argv[2]); int hash=atoi(argv[3]); size_t n=64<<20;
  int fd=open(path,O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  char*buf=aligned_alloc(4096,n); memset(buf,1,n);
  double t0=now(),c0=cpu(); unsigned long long h=0;
  for(size_t off=0;off<n;off+=req){ size_t k=req; if(off+k>n)k=n-off; ssize_t r=pread(fd,buf+off,k,off); if(r!=(ssize_t)k){perror("pread");return 1;}
    if(hash==1){ for(size_t g=0;g<k;g+=4096) h^=XXH3_64bits(buf+off+g,4096);} }
  if(hash==2){ for(size_t g=0;g<n;g+=4096) h^=XXH3_64bits(buf+g,4096);}
  double t1=now(),c1=cpu();
  printf("req=%zu hash=%d %.1f ms cpu %.1f ms %.0f MiB/s %llx\n",req,hash,(t1-t0)*1e3,(c1-c0)*1e3,64/(t1-t0),h&1);
  return 0;}
