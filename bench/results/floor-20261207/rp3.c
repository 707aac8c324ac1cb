#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <xxhash.h>
#include <sys/resource.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double cpu(){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec+r.ru_stime.tv_sec+(r.ru_utime.tv_usec+r.ru_stime.tv_usec)*1e-6;}
static int fd; static char*buf; static size_t n=64<<20, req; static size_t done_off; static pthread_mutex_t mu=PTHREAD_MUTEX_INITIALIZER; static pthread_cond_t cv=PTHREAD_COND_INITIALIZER;
static void* reader(void*a){ for(size_t off=0;off<n;off+=req){ pread(fd,buf+off,req,off); pthread_mutex_lock(&mu); done_off=off+req; pthread_cond_signal(&cv); pthread_mutex_unlock(&mu);} return 0;}
int main(int argc,char**argv){
  const char*path=argv[1]; req=atol(argv[2]); int mode=atoi(argv[3]);
  fd=open(path,O_RDONLY); fdatasync(fd); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  buf=aligned_alloc(4096,n); memset(buf,1,n);
  double t0=now(),c0=cpu(); unsigned long long h=0;
  pthread_t t; pthread_create(&t,0,reader,0); size_t off=0;
  while(off<n){ pthread_mutex_lock(&mu); while(done_off<=off) pthread_cond_wait(&cv,&mu); size_t d=done_off; pthread_mutex_unlock(&mu);
     if(mode) for(;off<d;off+=4096) h^=XXH3_64bits(buf+off,4096); else off=d; }
  pthread_join(t,0);
  double t1=now(),c1=cpu();
  printf("thread req=%zu hash=%d %.1f ms cpu %.1f ms %.0f MiB/s %llx\n",req,mode,(t1-t0)*1e3,(c1-c0)*1e3,64/(t1-t0),h&1);
  return 0;}
