// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The shim's struct tcp_sock layout, for the Rust mirror's test (ffi.rs). */
void hscc_user_layout(size_t *out)
{
	hscc_user_layout_fill(out);
}
