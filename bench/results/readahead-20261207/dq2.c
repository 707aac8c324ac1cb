// Cold 64 MiB read, 1 MiB requests. A: buffered, one thread, no check (the
// POSIX reader). B: buffered + XXH3 per 4 KiB. C: O_DIRECT, I/O threads
// keep QD requests in flight ahead; the main thread verifies in order (the
// pipeline cairn would build). D: the same through the cache.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#define MB (1<<20)
#define N 64
static const char* path; static char* dst; static int fdg; static atomic_int nexti; static atomic_int done_[N]; static unsigned long sink;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static void evict(){int fd=open(path,O_RDONLY);posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);close(fd);}
static void verify(const char*p,size_t n){unsigned long s=0;for(size_t o=0;o<n;o+=4096)s^=XXH3_64bits(p+o,4096);sink^=s;}
static void* io(void*a){(void)a;for(;;){int i=atomic_fetch_add(&nexti,1);if(i>=N)break; if(pread(fdg,dst+(size_t)i*MB,MB,(off_t)i*MB)!=MB){perror("pread");exit(1);} atomic_store(&done_[i],1);}return 0;}
static double single(int check){evict();int fd=open(path,O_RDONLY);double t0=now();for(int i=0;i<N;i++){if(pread(fd,dst+(size_t)i*MB,MB,(off_t)i*MB)!=MB)exit(1);if(check)verify(dst+(size_t)i*MB,MB);}double t=now()-t0;close(fd);return t*1e3;}
static double pipe_(int direct,int qd){evict();fdg=open(path,O_RDONLY|(direct?O_DIRECT:0));nexti=0;for(int i=0;i<N;i++)done_[i]=0;
  double t0=now();pthread_t th[8];for(int i=0;i<qd;i++)pthread_create(&th[i],0,io,0);
  for(int i=0;i<N;i++){while(!atomic_load(&done_[i]));verify(dst+(size_t)i*MB,MB);}
  for(int i=0;i<qd;i++)pthread_join(th[i],0);double t=now()-t0;close(fdg);return t*1e3;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){path=argv[1];int reps=argc>2?atoi(argv[2]):9;
  posix_memalign((void**)&dst,4096,(size_t)N*MB);for(size_t o=0;o<(size_t)N*MB;o+=64)dst[o]=rand();
  int fd=open(path,O_CREAT|O_WRONLY|O_TRUNC,0644);write(fd,dst,(size_t)N*MB);fsync(fd);close(fd);
  const char*names[]={"posix (buf, no check)","buf + check","dio ahead qd2 + check","dio ahead qd3 + check","buf ahead qd2 + check"};
  double r[5][64];
  for(int k=0;k<reps;k++){r[0][k]=single(0);r[1][k]=single(1);r[2][k]=pipe_(1,2);r[3][k]=pipe_(1,3);r[4][k]=pipe_(0,2);}
  for(int c=0;c<5;c++){qsort(r[c],reps,sizeof(double),cmp);printf("%-24s ms min %.1f med %.1f max %.1f  MiB/s(med) %.0f\n",names[c],r[c][0],r[c][reps/2],r[c][reps-1],64/(r[c][reps/2]/1e3));}
  return 0;}
