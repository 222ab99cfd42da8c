// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Register one congestion-control program of bpf/ with the kernel and pin
 * its struct_ops link, so the registration outlives this process:
 *
 *   hscc-bpf-loader [--user] OBJ PIN [GLOBAL=VALUE ...]
 *
 * OBJ is a NAME.bpf.o built by bpf/Makefile, PIN a path on a bpffs
 * (hscc kernel load uses /sys/fs/bpf/hscc/NAME). Each GLOBAL=VALUE sets a
 * load-time global of the program (section .rodata.params) by name, before
 * the verifier runs, and every one of them must be given: `hscc kernel load`
 * computes them from the parameters with hscc-cc's Cc::bpf_globals, so the
 * kernel runs the configuration the Rust one does, never a default of 0.
 * An array global is given element by element, GLOBAL[INDEX]=VALUE (the
 * table of HighSpeed with non-RFC constants); a scalar says how many
 * elements the program reads.
 * Removing the pin unregisters the algorithm (the link is its last holder).
 *
 * --user: a program a user brings (hscc kernel load FILE.bpf.c): its
 * parameters are the globals the simulator sets (hscc-program's elf.rs),
 * those of sections .rodata, .data, .rodata.* and .data.*: `const volatile`
 * ones, as libbpf programs declare them (.rodata), and plain initialized ones
 * (.data); each is written into its section's map before the verifier runs,
 * as a skeleton's rodata and data are. One not given keeps the program's
 * value. An array of 1, 2, 4 or 8 bytes may be given whole, as a whole
 * number (the simulator offers it so), or element by element.
 *
 * libbpf 1.1 (Debian 12) has no ".struct_ops.link" section, so the link is
 * made here: the map is created with BPF_F_LINK, filled by
 * bpf_map__attach_struct_ops (which, for such a map, does not register), and
 * registered by BPF_LINK_CREATE. A BPF_F_LINK map is never registered
 * without its link, so no registration can leak if this process dies.
 *
 * Exit status: 0 registered and pinned; 1 failed (the reason on stderr,
 * with the verifier's log when it refused a program); 2 bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* From the kernel's uapi linux/bpf.h, newer than Debian 12's headers. */
#ifndef BPF_F_LINK_VALUE
#define BPF_F_LINK_VALUE (1U << 13)
#endif
#define BPF_STRUCT_OPS_ATTACH 44
#define PARAMS_SEC ".rodata.params"
#define USER_PARAMS_SEC ".rodata"
#define MAX_GLOBALS 256
#define MAX_SECS 16

/* One section of parameter globals: its BTF, its map and the map's initial
 * value as edited here, and which of its globals were given. */
struct params_sec {
	const char *name;
	int btf_id;
	struct bpf_map *map;
	char *data;
	size_t size;
	bool set[MAX_GLOBALS];
};

/* --user, and whether every parameter global must be given (not with --user). */
static bool user_mode;
static bool all_required = true;
static struct params_sec secs[MAX_SECS];
static int nsecs;

/* Whether the data section `name` holds parameters: hscc's own .rodata.params,
 * or with --user each section the simulator takes parameters from. */
static bool is_params_sec(const char *name)
{
	if (!user_mode)
		return strcmp(name, PARAMS_SEC) == 0;
	return strcmp(name, USER_PARAMS_SEC) == 0 || strcmp(name, ".data") == 0 ||
	       strncmp(name, ".rodata.", 8) == 0 || strncmp(name, ".data.", 6) == 0;
}

/* Find the sections of parameter globals and copy their maps' initial values;
 * 0 or -1 with a message. */
static int find_params_secs(struct bpf_object *obj)
{
	struct btf *btf = bpf_object__btf(obj);
	__u32 id, n = btf ? btf__type_cnt(btf) : 0;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		struct params_sec *sec;
		const void *init;
		const char *name;

		if (!btf_is_datasec(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !is_params_sec(name))
			continue;
		if (nsecs == MAX_SECS) {
			fprintf(stderr, "hscc-bpf-loader: more than %d sections of globals\n", MAX_SECS);
			return -1;
		}
		sec = &secs[nsecs++];
		sec->name = name;
		sec->btf_id = id;
		sec->map = bpf_object__find_map_by_name(obj, name);
		if (!sec->map)
			continue;
		init = bpf_map__initial_value(sec->map, &sec->size);
		sec->data = malloc(sec->size);
		if (!init || !sec->data) {
			fprintf(stderr, "hscc-bpf-loader: cannot read the initial value of %s\n", name);
			return -1;
		}
		memcpy(sec->data, init, sec->size);
	}
	return 0;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The array type under a global's const/volatile, or NULL for a scalar. */
static const struct btf_array *global_array(const struct btf *btf, __u32 type_id)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);

	while (t && btf_is_mod(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_array(t) ? btf_array(t) : NULL;
}

/*
 * Set the parameter global `key` to `text` in the section that has it,
 * marking it there; 0 or -1 with a message. An array global is set element by
 * element, as "name[i]"; a scalar global of the program says how many
 * elements it uses, so elements not given stay 0 and an array counts as
 * given. With --user an array of 1, 2, 4 or 8 bytes may be given whole, as
 * the simulator takes it.
 */
static int set_global(struct bpf_object *obj, const char *key, const char *text)
{
	struct btf *btf = bpf_object__btf(obj);
	char *end, name[128];
	const char *bracket = strchr(key, '[');
	unsigned long index = 0;
	int s, i;

	if (bracket) {
		char *close;

		errno = 0;
		index = strtoul(bracket + 1, &close, 10);
		if (errno || close == bracket + 1 || strcmp(close, "]") != 0 || (size_t)(bracket - key) >= sizeof(name)) {
			fprintf(stderr, "hscc-bpf-loader: '%s' is not GLOBAL or GLOBAL[INDEX]\n", key);
			return -1;
		}
		memcpy(name, key, bracket - key);
		name[bracket - key] = 0;
	} else {
		snprintf(name, sizeof(name), "%s", key);
	}

	for (s = 0; btf && s < nsecs; s++) {
		struct params_sec *sec = &secs[s];
		const struct btf_type *t = btf__type_by_id(btf, sec->btf_id);
		const struct btf_var_secinfo *vsi = btf_var_secinfos(t);

		for (i = 0; i < btf_vlen(t) && i < MAX_GLOBALS; i++, vsi++) {
			const struct btf_type *var = btf__type_by_id(btf, vsi->type);
			const struct btf_array *arr = global_array(btf, var->type);
			__u32 offset = vsi->offset, width = vsi->size;
			bool whole = arr && !bracket && user_mode &&
				     (width == 1 || width == 2 || width == 4 || width == 8);
			int64_t v;

			if (strcmp(btf__name_by_offset(btf, var->name_off), name) != 0)
				continue;
			if (!sec->data) {
				fprintf(stderr, "hscc-bpf-loader: %s=%s: %s has no map to set it in\n", key, text, sec->name);
				return -1;
			}
			if (whole)
				arr = NULL;
			if (!arr != !bracket) {
				fprintf(stderr, "hscc-bpf-loader: %s is %s: give it as %s\n", name, arr ? "an array" : "not an array",
					arr ? "NAME[INDEX]=VALUE" : "NAME=VALUE");
				return -1;
			}
			if (arr) {
				if (index >= arr->nelems) {
					fprintf(stderr, "hscc-bpf-loader: %s has %u elements, not %lu\n", name, arr->nelems, index + 1);
					return -1;
				}
				width = vsi->size / arr->nelems;
				offset += index * width;
			}
			errno = 0;
			v = strtoll(text, &end, 0);
			if (errno || *end || end == text) {
				fprintf(stderr, "hscc-bpf-loader: %s=%s: not a whole number\n", key, text);
				return -1;
			}
			if (offset + width > sec->size || width == 0 || width > 8) {
				fprintf(stderr, "hscc-bpf-loader: %s lies outside %s\n", key, sec->name);
				return -1;
			}
			if (width < 8) {
				int64_t lo = -(INT64_C(1) << (8 * width - 1));
				int64_t hi = (INT64_C(1) << (8 * width)) - 1;

				if (v < lo || v > hi) {
					fprintf(stderr, "hscc-bpf-loader: %s=%s does not fit its %u bytes\n", key, text, width);
					return -1;
				}
			}
			/* Little-endian hosts (x86-64, arm64): the low bytes first. */
			memcpy(sec->data + offset, &v, width);
			if (arr) {
				sec->set[i] = true;
				return 0;
			}
			if (sec->set[i]) {
				fprintf(stderr, "hscc-bpf-loader: %s is given twice\n", key);
				return -1;
			}
			sec->set[i] = true;
			return 0;
		}
	}
	if (!nsecs) {
		fprintf(stderr, "hscc-bpf-loader: %s=%s: the program has no load-time globals\n", key, text);
		return -1;
	}
	fprintf(stderr, "hscc-bpf-loader: the program has no load-time global '%s'\n", key);
	return -1;
}

/* Every parameter global of hscc's own programs must have been given; 0 or -1
 * naming the first missing. */
static int check_all_set(struct bpf_object *obj)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *t;
	int s, i;

	for (s = 0; all_required && s < nsecs; s++) {
		t = btf__type_by_id(btf, secs[s].btf_id);
		if (btf_vlen(t) > MAX_GLOBALS) {
			fprintf(stderr, "hscc-bpf-loader: more than %d parameter globals\n", MAX_GLOBALS);
			return -1;
		}
		vsi = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, vsi++) {
			const struct btf_type *var = btf__type_by_id(btf, vsi->type);

			if (!secs[s].set[i] && !global_array(btf, var->type)) {
				fprintf(stderr, "hscc-bpf-loader: parameter global '%s' is not given (hscc-cc's Cc::bpf_globals names every one)\n",
					btf__name_by_offset(btf, var->name_off));
				return -1;
			}
		}
	}
	return 0;
}

/* Write the edited initial values into their maps; 0 or -1 with a message. */
static int set_initial_values(void)
{
	int s;

	for (s = 0; s < nsecs; s++) {
		if (secs[s].data && bpf_map__set_initial_value(secs[s].map, secs[s].data, secs[s].size)) {
			fprintf(stderr, "hscc-bpf-loader: cannot set %s\n", secs[s].name);
			return -1;
		}
	}
	return 0;
}

static void free_secs(void)
{
	int s;

	for (s = 0; s < nsecs; s++)
		free(secs[s].data);
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_map *map, *ops = NULL;
	struct bpf_link *filled;
	int i, err, link_fd;

	if (argc > 1 && strcmp(argv[1], "--user") == 0) {
		user_mode = true;
		all_required = false;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: hscc-bpf-loader [--user] OBJ PIN [GLOBAL=VALUE ...]\n");
		return 2;
	}
	libbpf_set_print(print_libbpf);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "hscc-bpf-loader: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			ops = map;
	}
	if (!ops) {
		fprintf(stderr, "hscc-bpf-loader: %s has no struct_ops map\n", argv[1]);
		goto fail;
	}
	if (find_params_secs(obj))
		goto fail;
	for (i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "hscc-bpf-loader: '%s' is not GLOBAL=VALUE\n", argv[i]);
			goto fail;
		}
		*eq = 0;
		if (set_global(obj, argv[i], eq + 1))
			goto fail;
	}
	if (check_all_set(obj) || set_initial_values())
		goto fail;
	bpf_map__set_map_flags(ops, bpf_map__map_flags(ops) | BPF_F_LINK_VALUE);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "hscc-bpf-loader: the kernel refused %s: %s\n", argv[1], strerror(-err));
		goto fail;
	}
	filled = bpf_map__attach_struct_ops(ops);
	if (!filled) {
		fprintf(stderr, "hscc-bpf-loader: cannot fill the struct_ops map: %s\n", strerror(errno));
		goto fail;
	}
	/* The map is filled; the link below is what registers it. */
	bpf_link__disconnect(filled);
	bpf_link__destroy(filled);
	link_fd = bpf_link_create(bpf_map__fd(ops), 0, BPF_STRUCT_OPS_ATTACH, NULL);
	if (link_fd < 0) {
		fprintf(stderr, "hscc-bpf-loader: registration refused: %s\n", strerror(-link_fd));
		goto fail;
	}
	err = bpf_obj_pin(link_fd, argv[2]);
	if (err) {
		fprintf(stderr, "hscc-bpf-loader: cannot pin at %s: %s (registration dropped)\n", argv[2], strerror(errno));
		close(link_fd);
		goto fail;
	}
	close(link_fd);
	free_secs();
	bpf_object__close(obj);
	return 0;
fail:
	free_secs();
	bpf_object__close(obj);
	return 1;
}
