// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Linked into every program the simulator builds (crates/hscc-program,
 * compile.rs): what the shim's headers declare (the clock, the generator
 * state, socket storage, kconfig values), the one entry point through which
 * the simulator calls a hook, and the undefined-behaviour handlers that turn
 * an index out of bounds into a report with the program's file:line instead
 * of a crash.
 *
 * A hook runs inside hscc_rt_call under a jump buffer: a sanitizer handler,
 * or the simulator's signal handler (a segmentation fault in the hook, fault.rs),
 * fills in the report and jumps back, so the call returns an error code and
 * the process goes on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmlinux.h"
#include "hscc_layout.h"

/* Hidden: the program sees them, the loader does not take them for parameters. */
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN __thread __u64 hscc_prandom_state;
HIDDEN __thread __u64 hscc_rt_now_ns;
HIDDEN unsigned long CONFIG_HZ = 1000;
HIDDEN unsigned int LINUX_KERNEL_VERSION = (6U << 16) + (12U << 8);

/* The hooks, in the order of hscc-program's Hook enum. */
enum hscc_rt_hook {
	HOOK_INIT,
	HOOK_SSTHRESH,
	HOOK_CONG_AVOID,
	HOOK_SET_STATE,
	HOOK_CWND_EVENT,
	HOOK_IN_ACK_EVENT,
	HOOK_PKTS_ACKED,
	HOOK_UNDO_CWND,
	HOOK_RELEASE,
	HOOK_CONG_CONTROL,
	HOOK_SKB_MARKED_LOST,
};

/* What went wrong in a hook (hscc-program's FaultKind). */
enum hscc_rt_fault_kind {
	FAULT_NONE = 0,
	FAULT_OUT_OF_BOUNDS = 2,
	FAULT_SIGNAL = 3,
	FAULT_SHIFT = 4,
	FAULT_STACK = 5,
};

struct hscc_rt_fault {
	__u32 kind;
	__u32 line;
	__u32 column;
	__s32 signal;
	__u64 pc;
	__u64 addr;
	char file[256];
};

/* One call: the hook, its arguments, the connection's generator state and
 * clock in, the result and generator state out. */
struct hscc_rt_call {
	const struct tcp_congestion_ops *ops;
	struct sock *sk;
	__u32 hook;
	__u32 a;
	__u32 b;
	__u32 ret;
	const void *p;
	__u64 prandom;
	__u64 now_ns;
	/* The top of this thread's hook stack (16-byte aligned, an inaccessible
	 * page right above it), or NULL to run on the caller's stack. */
	void *stack;
	struct hscc_rt_fault fault;
};

struct hscc_rt_frame {
	jmp_buf env;
	struct hscc_rt_fault *fault;
};

static __thread struct hscc_rt_frame *frame;

/* The ops of the hook being run: bpf_getsockopt(TCP_CONGESTION) names them. */
static __thread const struct tcp_congestion_ops *current_ops;

static void leave(void)
{
	struct hscc_rt_frame *f = frame;

	frame = NULL;
	_longjmp(f->env, 1);
}

/* Called by the simulator's signal handler while a hook of this program runs
 * on this thread; does not return. */
void hscc_rt_fault_signal(int sig, __u64 pc, __u64 addr)
{
	if (!frame)
		abort();
	frame->fault->kind = FAULT_SIGNAL;
	frame->fault->signal = sig;
	frame->fault->pc = pc;
	frame->fault->addr = addr;
	leave();
}

/* The location the compiler's sanitizer passes (gcc and clang alike). */
struct hscc_ubsan_location {
	const char *file;
	__u32 line;
	__u32 column;
};

static void ubsan_fault(const struct hscc_ubsan_location *loc, __u32 kind)
{
	struct hscc_rt_fault *out;

	if (!frame)
		abort();
	out = frame->fault;
	out->kind = kind;
	out->line = loc->line;
	out->column = loc->column;
	out->pc = (__u64)__builtin_return_address(0);
	strncpy(out->file, loc->file ? loc->file : "", sizeof(out->file) - 1);
	leave();
}

#define HSCC_UBSAN(name, kind)                                        \
	void __ubsan_handle_##name(const struct hscc_ubsan_location *loc) \
	{                                                             \
		ubsan_fault(loc, kind);                                   \
	}                                                             \
	void __ubsan_handle_##name##_abort(const struct hscc_ubsan_location *loc) \
	{                                                             \
		ubsan_fault(loc, kind);                                   \
	}
HSCC_UBSAN(out_of_bounds, FAULT_OUT_OF_BOUNDS)
HSCC_UBSAN(shift_out_of_bounds, FAULT_SHIFT)

/* The stack protector's: a function of the program wrote past a local array
 * over its frame's canary, found as it returns (before it uses the return
 * address). Hidden, so the program's calls bind here and not to the C
 * library's, which would end the process. The address is in the function. */
HIDDEN void __stack_chk_fail(void)
{
	if (!frame)
		abort();
	frame->fault->kind = FAULT_STACK;
	frame->fault->pc = (__u64)__builtin_return_address(0);
	leave();
}

/*
 * hscc_rt_on_stack(c, fn, top): fn(c) with the stack pointer at `top`, back
 * on the caller's stack after. A hook runs on a stack of its own (fault.rs
 * maps one per thread, an inaccessible page above its top): a write past a
 * local array runs over the program's own frames and into that page, never
 * into the simulator's frames or the jump buffer, which stay on the caller's
 * stack. rbp keeps the caller's stack pointer (callee-saved, so fn keeps it);
 * the CFI lets a debugger's backtrace cross over.
 */
HIDDEN void hscc_rt_on_stack(struct hscc_rt_call *c, void (*fn)(struct hscc_rt_call *),
			     void *top);
__asm__(".text\n"
	".globl hscc_rt_on_stack\n"
	".hidden hscc_rt_on_stack\n"
	".type hscc_rt_on_stack, @function\n"
	"hscc_rt_on_stack:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"mov %rdx, %rsp\n"
	"call *%rsi\n"
	"mov %rbp, %rsp\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size hscc_rt_on_stack, .-hscc_rt_on_stack\n");

/* The hook `c` names, with its arguments. */
static void dispatch(struct hscc_rt_call *c)
{
	const struct tcp_congestion_ops *ops = c->ops;
	struct sock *sk = c->sk;

	switch (c->hook) {
	case HOOK_INIT:
		ops->init(sk);
		break;
	case HOOK_SSTHRESH:
		c->ret = ops->ssthresh(sk);
		break;
	case HOOK_CONG_AVOID:
		ops->cong_avoid(sk, c->a, c->b);
		break;
	case HOOK_SET_STATE:
		ops->set_state(sk, (__u8)c->a);
		break;
	case HOOK_CWND_EVENT:
		ops->cwnd_event(sk, (enum tcp_ca_event)c->a);
		break;
	case HOOK_IN_ACK_EVENT:
		ops->in_ack_event(sk, c->a);
		break;
	case HOOK_PKTS_ACKED:
		ops->pkts_acked(sk, (const struct ack_sample *)c->p);
		break;
	case HOOK_UNDO_CWND:
		c->ret = ops->undo_cwnd(sk);
		break;
	case HOOK_RELEASE:
		ops->release(sk);
		break;
	case HOOK_CONG_CONTROL:
		ops->cong_control(sk, c->a, (int)c->b, (const struct rate_sample *)c->p);
		break;
	case HOOK_SKB_MARKED_LOST:
		ops->skb_marked_lost(sk, (const struct sk_buff *)c->p);
		break;
	}
}

int hscc_rt_call(struct hscc_rt_call *c)
{
	struct hscc_rt_frame f;

	f.fault = &c->fault;
	c->fault.kind = FAULT_NONE;
	hscc_prandom_state = c->prandom;
	hscc_rt_now_ns = c->now_ns;
	if (_setjmp(f.env)) {
		c->prandom = hscc_prandom_state;
		return 1;
	}
	frame = &f;
	current_ops = c->ops;
	if (c->stack)
		hscc_rt_on_stack(c, dispatch, c->stack);
	else
		dispatch(c);
	frame = NULL;
	c->prandom = hscc_prandom_state;
	return 0;
}

/*
 * Socket options. The simulator runs one algorithm per flow for the whole
 * run, so a hook cannot change it (or any other option): bpf_setsockopt
 * fails with -EOPNOTSUPP. bpf_getsockopt answers SOL_TCP TCP_CONGESTION with
 * the program's own name, as the kernel would (the first optlen bytes,
 * NUL-padded), and fails with -EOPNOTSUPP for anything else, zeroing optval
 * as the kernel does on failure.
 */
#define HSCC_EOPNOTSUPP 95
#define HSCC_EINVAL 22
#define HSCC_SOL_TCP 6
#define HSCC_TCP_CONGESTION 13

long bpf_setsockopt(void *sk, int level, int optname, void *optval, int optlen)
{
	(void)sk;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -HSCC_EOPNOTSUPP;
}

long bpf_getsockopt(void *sk, int level, int optname, void *optval, int optlen)
{
	(void)sk;
	if (optlen < 0)
		return -HSCC_EINVAL;
	if (level == HSCC_SOL_TCP && optname == HSCC_TCP_CONGESTION && current_ops) {
		size_t n = (size_t)optlen < sizeof(current_ops->name) ? (size_t)optlen
								       : sizeof(current_ops->name);
		memset(optval, 0, (size_t)optlen);
		strncpy(optval, current_ops->name, n);
		return 0;
	}
	memset(optval, 0, (size_t)optlen);
	return -HSCC_EOPNOTSUPP;
}

/*
 * The receiving end's immediate ACK (DCTCP's CE echo). The simulator runs a
 * program's hooks for the sending end only; the receiving end's ACKs are the
 * engine's (for a TCP_CONG_NEEDS_ECN algorithm, DCTCP's echo: hscc-sim
 * tcp/ecn.rs). A hook that calls it sends nothing and gets -EOPNOTSUPP.
 */
long bpf_tcp_send_ack(void *tp, __u32 rcv_nxt)
{
	(void)tp;
	(void)rcv_nxt;
	return -HSCC_EOPNOTSUPP;
}

/* bpf_printk: the kernel writes to its trace pipe; the simulator to standard error. */
int hscc_rt_printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

void hscc_rt_layout(size_t *out)
{
	hscc_user_layout_fill(out);
}

/*
 * Socket storage: one value per (map, socket), zeroed when created, in a
 * chained hash table; a registration's sockets are released (and their values
 * freed) when their connections close. Each value is the last bytes of its
 * own mapping, between inaccessible pages (as the simulator's socket, guard.rs),
 * so a write past it faults in the hook instead of landing in the simulator's
 * memory.
 */
#define STORAGE_BUCKETS 1024

struct storage_entry {
	struct storage_entry *next;
	void *map;
	void *sk;
	void *value;
	void *mapping;
	size_t mapping_len;
};

/* In .data, before the program's globals (compile.rs links the runtime first
 * and keeps it out of .bss): a write past the program's globals runs into the
 * guard page after them, never into this table. */
static struct storage_entry *storage[STORAGE_BUCKETS] __attribute__((section(".data.hscc_rt")));

static size_t storage_bucket(void *sk)
{
	return ((uintptr_t)sk >> 4) % STORAGE_BUCKETS;
}

/* A zeroed value of `size` bytes that ends where an inaccessible page begins;
 * NULL when there is no memory. Aligned as its type: the size is a multiple
 * of the type's alignment and the page boundary of every one. */
static void *guarded_value(struct storage_entry *e, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = size ? (size + page - 1) / page * page : page;
	size_t len = data + 2 * page;
	char *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m + page, data, PROT_READ | PROT_WRITE)) {
		munmap(m, len);
		return NULL;
	}
	e->mapping = m;
	e->mapping_len = len;
	return m + page + data - size;
}

static void storage_free(struct storage_entry *e)
{
	munmap(e->mapping, e->mapping_len);
	free(e);
}

void *hscc_rt_sk_storage_get(void *map, size_t size, void *sk, void *init, __u64 flags)
{
	struct storage_entry **b = &storage[storage_bucket(sk)];
	struct storage_entry *e;

	for (e = *b; e; e = e->next)
		if (e->map == map && e->sk == sk)
			return e->value;
	if (!(flags & 1))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->value = guarded_value(e, size);
	if (!e->value) {
		free(e);
		return NULL;
	}
	e->map = map;
	e->sk = sk;
	if (init)
		memcpy(e->value, init, size);
	e->next = *b;
	*b = e;
	return e->value;
}

long hscc_rt_sk_storage_delete(void *map, void *sk)
{
	struct storage_entry **p = &storage[storage_bucket(sk)];

	for (; *p; p = &(*p)->next)
		if ((*p)->map == map && (*p)->sk == sk) {
			struct storage_entry *e = *p;

			*p = e->next;
			storage_free(e);
			return 0;
		}
	return -2; /* -ENOENT */
}

/* The socket closed: free every value it holds, as the kernel does. */
void hscc_rt_release_socket(void *sk)
{
	struct storage_entry **p = &storage[storage_bucket(sk)];

	while (*p) {
		if ((*p)->sk == sk) {
			struct storage_entry *e = *p;

			*p = e->next;
			storage_free(e);
		} else {
			p = &(*p)->next;
		}
	}
}
