/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kathleen Nichols' windowed max filter, as Linux's lib/win_minmax.c and
 * hscc-cc's bbr/minmax.rs: BBR's bandwidth filter and BBRv3's extra_acked
 * filter.
 */
#ifndef HSCC_WIN_MINMAX_H
#define HSCC_WIN_MINMAX_H

static __always_inline __u32 minmax_reset(struct minmax *m, __u32 t, __u32 meas)
{
	m->s[0].t = m->s[1].t = m->s[2].t = t;
	m->s[0].v = m->s[1].v = m->s[2].v = meas;
	return meas;
}

static __always_inline __u32 minmax_subwin_update(struct minmax *m, __u32 win, __u32 t, __u32 v)
{
	__u32 dt = t - m->s[0].t;

	if (dt > win) {
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2].t = t;
		m->s[2].v = v;
		if (t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2].t = t;
			m->s[2].v = v;
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		m->s[1].t = m->s[2].t = t;
		m->s[1].v = m->s[2].v = v;
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		m->s[2].t = t;
		m->s[2].v = v;
	}
	return m->s[0].v;
}

static __always_inline __u32 minmax_running_max(struct minmax *m, __u32 win, __u32 t, __u32 meas)
{
	if (meas >= m->s[0].v || t - m->s[2].t > win)
		return minmax_reset(m, t, meas);
	if (meas >= m->s[1].v) {
		m->s[1].t = m->s[2].t = t;
		m->s[1].v = m->s[2].v = meas;
	} else if (meas >= m->s[2].v) {
		m->s[2].t = t;
		m->s[2].v = meas;
	}
	return minmax_subwin_update(m, win, t, meas);
}

#endif /* HSCC_WIN_MINMAX_H */
