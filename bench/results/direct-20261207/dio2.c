#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
// usage: dio2 dir MiB procs reps
int main(int argc,char**argv){
  const char*dir=argv[1]; size_t total=(size_t)atol(argv[2])<<20; int procs=atoi(argv[3]), reps=atoi(argv[4]);
  char path[256]; char*buf; posix_memalign((void**)&buf,4096,total); memset(buf,1,total);
  for(int p=0;p<procs;p++){snprintf(path,256,"%s/f%d",dir,p);int fd=open(path,O_RDWR|O_CREAT|O_TRUNC,0644);
    for(size_t o=0;o<total;o+=1<<20) pwrite(fd,buf+o,1<<20,o); fsync(fd); close(fd);}
  size_t blks[]={64<<10,256<<10,1<<20,4<<20};
  for(int r=0;r<reps;r++) for(int b=0;b<4;b++) for(int d=0;d<2;d++){
    for(int p=0;p<procs;p++){snprintf(path,256,"%s/f%d",dir,p);int fd=open(path,O_RDONLY);posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);close(fd);}
    double t0=now();
    for(int p=0;p<procs;p++) if(fork()==0){snprintf(path,256,"%s/f%d",dir,p);int fd=open(path,O_RDONLY|(d?O_DIRECT:0));
      for(size_t o=0;o<total;o+=blks[b]) if(pread(fd,buf+o,blks[b],o)!=(ssize_t)blks[b]){perror("pread");_exit(1);} _exit(0);}
    struct rusage ru; double cpu=0; for(int p=0;p<procs;p++){int st; wait4(-1,&st,0,&ru); cpu+=ru.ru_utime.tv_sec+ru.ru_stime.tv_sec+(ru.ru_utime.tv_usec+ru.ru_stime.tv_usec)*1e-6;}
    double t=now()-t0;
    printf("%s %5zuK x%d: %6.0f MiB/s  cpu/proc %5.1f ms\n",d?"direct  ":"buffered",blks[b]>>10,procs,procs*total/1048576.0/t,cpu*1e3/procs);
  }
}
