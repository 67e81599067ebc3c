/* SPDX-License-Identifier: MIT */
/*
 * netsoft.c - a thread whose lateness comes from softirqs on its own CPU:
 * pinned to CPU N, it sends UDP datagrams to itself over the loopback
 * device for MS milliseconds (the kernel receives each one in the NET_RX
 * softirq, on the sending CPU), reads them back, then traces the anchor
 * netsoft:late with the burst's length as its lateness.
 *	netsoft CPU [MS [BURSTS]]
 * Prints "netsoft: tid T".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <lowtrace/tracepoint.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(netsoft, late, LT_WARNING, LT_ARGS(int64_t, late_us, int32_t, tid),
	 LT_FIELDS(LT_FIELD_INT(late_us, late_us) LT_FIELD_INT(tid, tid)))

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int cpu = atoi(argv[1]);
	long ms = argc > 2 ? atol(argv[2]) : 5;
	int bursts = argc > 3 ? atoi(argv[3]) : 5;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("netsoft: sched_setaffinity");
		return 1;
	}
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) != 0) {
		perror("netsoft: socket");
		return 1;
	}
	int tid = (int)syscall(SYS_gettid);
	printf("netsoft: tid %d\n", tid);
	fflush(stdout);
	/* many datagrams per system call: the time goes to the kernel */
	enum { VLEN = 64 };
	static char buf[VLEN][1400];
	static struct iovec iov[VLEN];
	static struct mmsghdr out[VLEN], in[VLEN];
	for (int i = 0; i < VLEN; i++) {
		iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		out[i].msg_hdr = (struct msghdr){ .msg_name = &a,
						  .msg_namelen = sizeof(a),
						  .msg_iov = &iov[i],
						  .msg_iovlen = 1 };
		in[i].msg_hdr =
			(struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1 };
	}
	for (int b = 0; b < bursts; b++) {
		struct timespec pause = { 0, 20000000 };
		nanosleep(&pause, NULL);
		int64_t t0 = now_ns(), end = t0 + ms * 1000000ll;
		while (now_ns() < end) {
			/* raw system calls: a sanitizer's wrappers of the
			 * C library's would take the time instead */
			syscall(SYS_sendmmsg, s, out, VLEN, 0);
			while (syscall(SYS_recvmmsg, s, in, VLEN, 0, NULL) > 0)
				;
		}
		lt_trace(netsoft, late, (now_ns() - t0) / 1000, tid);
	}
	close(s);
	return 0;
}
