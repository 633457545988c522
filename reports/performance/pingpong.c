/* The floor under every round trip of a stdio link on this machine: two
 * processes passing one byte back and forth over a pair of pipes, with
 * blocking reads, as a runner and its host pass a request and its answer.
 * `reports/performance/refresh` builds it and runs it twice, once as the
 * scheduler places the two processes and once pinned to one CPU (taskset),
 * and prints microseconds per round trip. Nothing of the kit is in it, so
 * its figure is what no change to the kit can go below per round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    enum { ROUND_TRIPS = 20000 };
    int there[2], back[2];
    char byte = 'x';
    if (pipe(there) != 0 || pipe(back) != 0) {
        perror("pipe");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        for (int i = 0; i < ROUND_TRIPS; i++) {
            if (read(there[0], &byte, 1) != 1 || write(back[1], &byte, 1) != 1) {
                _exit(1);
            }
        }
        _exit(0);
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < ROUND_TRIPS; i++) {
        if (write(there[1], &byte, 1) != 1 || read(back[0], &byte, 1) != 1) {
            fprintf(stderr, "the child stopped answering at round trip %d\n", i);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    int status = 0;
    waitpid(child, &status, 0);
    double ns = (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
    printf("%.1f\n", ns / 1e3 / ROUND_TRIPS);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
