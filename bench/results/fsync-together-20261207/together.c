#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void* fs(void* p){int fd=open((char*)p,O_RDONLY|O_DIRECTORY);fsync(fd);close(fd);return 0;}
int main(int argc,char**argv){
  int conc=atoi(argv[2]); char d[256]; static char buf[4<<20]; memset(buf,7,sizeof buf);
  for(int rep=0;rep<9;rep++){
    snprintf(d,sizeof d,"%s/s%d",argv[1],rep); mkdir(d,0755);
    char f[300]; snprintf(f,sizeof f,"%s/data",d);
    int fd=open(f,O_CREAT|O_WRONLY|O_TRUNC,0644); write(fd,buf,sizeof buf);
    double t0=now();
    if(!conc){ fsync(fd); fs(d); fs(argv[1]); }
    else { pthread_t a,b; pthread_create(&a,0,fs,d); pthread_create(&b,0,fs,argv[1]); fsync(fd); pthread_join(a,0); pthread_join(b,0);}
    double t1=now(); printf("%.2f ",t1-t0); close(fd);
  }
  printf("\n"); return 0;}
