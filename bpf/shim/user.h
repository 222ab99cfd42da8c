/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The user-space shim: compile a program of bpf/ as ordinary C with
 * `cc -include bpf/shim/user.h`, so the conformance crate
 * (crates/hscc-bpf-conformance) can drive it outside the kernel.
 *
 * The kernel types and kfuncs come from the shim's vmlinux.h (include/, on
 * the include path); this header adds what hscc's own programs use through
 * hscc.h in this build: load-time parameters as thread-local variables with a
 * setter by name, per-registration state and socket storage per thread.
 */
#ifndef HSCC_SHIM_USER_H
#define HSCC_SHIM_USER_H
#define HSCC_USER 1

#include <stdlib.h>
#include <string.h>

#include "vmlinux.h"
#include "hscc_layout.h"
#include "hscc_prandom.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define SEC(name)
/* A struct_ops program is a plain function here. */
#define BPF_PROG(name, args...) name(args)
#define HSCC_BITFIELD(p, field) ((p)->field)

#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_INFINITE_SSTHRESH 0x7fffffff

/*
 * Linux tcp_enter_cwr, as hscc-cc's helpers.rs has it: the sender enters CWR
 * when the hook (cong_avoid) returns (CDG). Not a kfunc: the kernel does not
 * let a program call it, so it is here, for hscc's own programs in user
 * space, and not in the shim's vmlinux.h, which a user's program builds
 * against (there, as in the kernel, it does not exist).
 */
static inline void tcp_enter_cwr(struct sock *sk)
{
	((struct tcp_sock *)sk)->hscc_enter_cwr = 1;
}

/*
 * Load-time parameters become thread-local variables (each test thread has
 * its own), with a setter by name and the list of names per program:
 * hscc_ALGO_set_global(name, value) and hscc_ALGO_global_names().
 */
#define HSCC_GLOBAL_DECL(type, name) static __thread type name;
#define HSCC_GLOBAL_SET(type, name)          \
	if (strcmp(key, #name) == 0) {       \
		name = (type)value;          \
		return 0;                    \
	}
#define HSCC_GLOBAL_NAME(type, name) #name,
#define HSCC_GLOBALS(algo, LIST)                                        \
	LIST(HSCC_GLOBAL_DECL)                                          \
	int hscc_##algo##_set_array(const char *key, int64_t value)    \
		__attribute__((weak));                                  \
	int hscc_##algo##_set_global(const char *key, int64_t value)   \
	{                                                               \
		LIST(HSCC_GLOBAL_SET)                                   \
		if (hscc_##algo##_set_array)                            \
			return hscc_##algo##_set_array(key, value);     \
		return -1;                                              \
	}                                                               \
	const char *const *hscc_##algo##_global_names(void)            \
	{                                                               \
		static const char *const names[] = { LIST(HSCC_GLOBAL_NAME) 0 }; \
		return names;                                           \
	}

/*
 * Array globals (HSCC_GLOBAL_ARRAYS, after HSCC_GLOBALS): thread-local arrays,
 * set element by element as "name[i]" through the same setter. They are not
 * in the name list: a scalar global says how many elements are used.
 */
#define HSCC_GLOBAL_ARRAY_DECL(type, name, n) static __thread type name[n];
#define HSCC_GLOBAL_ARRAY_SET(type, name, n)                                  \
	if (strncmp(key, #name "[", sizeof(#name)) == 0) {                     \
		char *end;                                                     \
		unsigned long i = strtoul(key + sizeof(#name), &end, 10);      \
		if (end == key + sizeof(#name) || strcmp(end, "]") != 0 || i >= (n)) \
			return -1;                                             \
		name[i] = (type)value;                                         \
		return 0;                                                      \
	}
#define HSCC_GLOBAL_ARRAYS(algo, LIST)                                  \
	LIST(HSCC_GLOBAL_ARRAY_DECL)                                    \
	int hscc_##algo##_set_array(const char *key, int64_t value)    \
	{                                                               \
		LIST(HSCC_GLOBAL_ARRAY_SET)                             \
		return -1;                                              \
	}

/*
 * State shared by every socket of a program (hscc.h HSCC_SHARED): one per
 * thread here, so each test thread is one kernel's registration.
 */
#define HSCC_SHARED(type, name) static __thread type name;

/*
 * Socket-local storage (hscc.h HSCC_SK_STORAGE): per thread, a few slots
 * keyed by the socket's address, zeroed when created; a program deletes its
 * value in release (CAlgo runs release when dropped), as the kernel frees it
 * with the socket.
 */
#define HSCC_SK_STORAGE_SLOTS 64
#define HSCC_SK_STORAGE_BYTES 2048 /* CDG's gradient window, 256 pairs of s32 */
#define BPF_SK_STORAGE_GET_F_CREATE (1ULL << 0)
struct hscc_sk_storage {
	const void *owner[HSCC_SK_STORAGE_SLOTS];
	_Alignas(8) unsigned char value[HSCC_SK_STORAGE_SLOTS][HSCC_SK_STORAGE_BYTES];
};
#define HSCC_SK_STORAGE(vtype, name)                                                  \
	_Static_assert(sizeof(vtype) <= HSCC_SK_STORAGE_BYTES, #vtype " is too large"); \
	static __thread struct hscc_sk_storage name;

static inline void *bpf_sk_storage_get(struct hscc_sk_storage *map, void *sk, void *init, __u64 flags)
{
	int i;

	(void)init;
	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (map->owner[i] == sk)
			return map->value[i];
	if (!(flags & BPF_SK_STORAGE_GET_F_CREATE))
		return NULL;
	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (!map->owner[i]) {
			map->owner[i] = sk;
			memset(map->value[i], 0, HSCC_SK_STORAGE_BYTES);
			return map->value[i];
		}
	return NULL;
}

static inline long bpf_sk_storage_delete(struct hscc_sk_storage *map, void *sk)
{
	int i;

	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (map->owner[i] == sk) {
			map->owner[i] = NULL;
			return 0;
		}
	return -2; /* -ENOENT */
}

#endif /* HSCC_SHIM_USER_H */
