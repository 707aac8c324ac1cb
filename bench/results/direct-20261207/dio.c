#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double cpu(){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec+r.ru_stime.tv_sec+(r.ru_utime.tv_usec+r.ru_stime.tv_usec)*1e-6;}
int main(int argc,char**argv){
  const char*path=argv[1]; size_t total=(size_t)atol(argv[2])<<20; int reps=atoi(argv[3]);
  char*buf; posix_memalign((void**)&buf,4096,total); memset(buf,1,total);
  int fd=open(path,O_RDWR|O_CREAT|O_TRUNC,0644);
  for(size_t o=0;o<total;o+=1<<20) pwrite(fd,buf+o,1<<20,o);
  fsync(fd); close(fd);
  const char* names[]={"buffered 1M","direct 1M","direct 8M","direct 64M","buffered 1M warm","nowait+direct 1M warm"};
  for(int r=0;r<reps;r++) for(int m=0;m<6;m++){
    int fd=open(path,O_RDONLY); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED); close(fd);
    if(m>=4){fd=open(path,O_RDONLY); for(size_t o=0;o<total;o+=1<<20) pread(fd,buf+o,1<<20,o); close(fd);}
    size_t blk = m==0||m==1||m>=4 ? 1<<20 : m==2 ? 8<<20 : total;
    int dfd=open(path,O_RDONLY|((m==1||m==2||m==3)?O_DIRECT:0));
    int dfd2 = m==5? open(path,O_RDONLY|O_DIRECT):-1;
    double t0=now(),c0=cpu(); size_t got=0;
    for(size_t o=0;o<total;o+=blk){
      ssize_t n;
      if(m==5){ struct iovec v={buf+o,blk}; n=preadv2(dfd,&v,1,o,RWF_NOWAIT); if(n<(ssize_t)blk){ if(n<0)n=0; n+=pread(dfd2,buf+o+n,blk-n,o+n);} }
      else n=pread(dfd,buf+o,blk,o);
      if(n!=(ssize_t)blk){perror("pread");return 1;} got+=n;}
    double t=now()-t0,c=cpu()-c0; close(dfd); if(dfd2>=0)close(dfd2);
    printf("%-22s %7.0f MiB/s cpu %6.1f ms\n",names[m],got/1048576.0/t,c*1e3);
  }
}
