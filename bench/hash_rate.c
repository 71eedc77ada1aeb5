/*
 * hash_rate THREADS SECONDS: argon2id hashes per second with libsodium alone, in THREADS threads for
 * about SECONDS, with the parameters Gatehouse uses (crypto_pwhash_str, interactive limits).
 *
 * bench/run.sh runs it at 1 and at 2 threads beside Gatehouse's own sign-in measurement, so the
 * report can say how much of a shortfall in sign-ins per second is the library on this machine
 * (two 64 MiB hashes at once contend for memory bandwidth and the kernel's page allocator) rather
 * than the server. Prints "HASHES <count> <seconds>".
 */
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double deadline;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Hashes until the deadline; returns the count through its argument. */
static void *hash_until_deadline(void *count) {
    static const char password[] = "bench-password-123";
    char out[crypto_pwhash_STRBYTES];
    long done = 0;
    while (now() < deadline) {
        if (crypto_pwhash_str(out, password, sizeof password - 1, crypto_pwhash_OPSLIMIT_INTERACTIVE,
                              crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) {
            fprintf(stderr, "hash_rate: crypto_pwhash_str failed (out of memory?)\n");
            exit(1);
        }
        done++;
    }
    *(long *)count = done;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 64 || atof(argv[2]) <= 0) {
        fprintf(stderr, "usage: hash_rate THREADS SECONDS\n");
        return 2;
    }
    if (sodium_init() < 0) return 1;
    int threads = atoi(argv[1]);
    pthread_t ids[64];
    long counts[64];
    double start = now();
    deadline = start + atof(argv[2]);
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, hash_until_deadline, &counts[i]);
    long total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        total += counts[i];
    }
    printf("HASHES %ld %.3f\n", total, now() - start);
    return 0;
}
