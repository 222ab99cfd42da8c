//! Linux-exact shared helpers (net/ipv4/tcp_cong.c). Most algorithms' Linux
//! behaviour *is* these helpers, so they exist once, here.

use crate::ops::TcpCc;

/// Linux `tcp_slow_start`: grow cwnd by `acked` up to ssthresh; return the
/// part of `acked` left over for congestion avoidance (RFC 5681 §3.1 with
/// RFC 3465 byte counting, as Linux does it).
#[inline]
pub fn tcp_slow_start(tp: &mut TcpCc, acked: u32) -> u32 {
    let cwnd = tp.snd_cwnd.saturating_add(acked).min(tp.snd_ssthresh);
    let acked = acked - (cwnd - tp.snd_cwnd.min(cwnd));
    tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
    acked
}

/// Linux `tcp_cong_avoid_ai`: increase cwnd by one segment per `w` segments
/// acknowledged, accumulating in `snd_cwnd_cnt`.
#[inline]
pub fn tcp_cong_avoid_ai(tp: &mut TcpCc, w: u32, acked: u32) {
    let w = w.max(1);
    // If credits accumulated at a higher w, apply them gently now.
    if tp.snd_cwnd_cnt >= w {
        tp.snd_cwnd_cnt = 0;
        tp.snd_cwnd = tp.snd_cwnd.saturating_add(1);
    }
    tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(acked);
    if tp.snd_cwnd_cnt >= w {
        let delta = tp.snd_cwnd_cnt / w;
        tp.snd_cwnd_cnt -= delta * w;
        tp.snd_cwnd = tp.snd_cwnd.saturating_add(delta);
    }
    tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_cwnd_clamp);
}

/// The opening of every Linux `cong_avoid` hook: nothing unless cwnd-limited
/// (`tcp_is_cwnd_limited`), then slow start below ssthresh (`tcp_slow_start`).
/// Returns the acknowledged segments left for congestion avoidance, or None
/// when nothing is left to do.
#[inline]
pub fn cong_avoid_start(tp: &mut TcpCc, acked: u32) -> Option<u32> {
    if !tp.is_cwnd_limited() {
        return None;
    }
    if tp.in_slow_start() {
        let left = tcp_slow_start(tp, acked);
        return (left > 0).then_some(left);
    }
    Some(acked)
}

/// The opening of Linux's `cong_avoid` hooks that do not carry slow start's
/// leftover into congestion avoidance (`tcp_highspeed.c`, `tcp_htcp.c`,
/// `tcp_illinois.c`): nothing unless cwnd-limited; below ssthresh only slow
/// start. Returns whether the congestion-avoidance increase should run.
#[inline]
pub fn in_congestion_avoidance(tp: &mut TcpCc, acked: u32) -> bool {
    if !tp.is_cwnd_limited() {
        return false;
    }
    if tp.in_slow_start() {
        tcp_slow_start(tp, acked);
        return false;
    }
    true
}

/// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, then +1 segment
/// per window of acknowledged segments (RFC 5681 §3.1).
#[inline]
pub fn tcp_reno_cong_avoid(tp: &mut TcpCc, _ack: u32, acked: u32) {
    let Some(acked) = cong_avoid_start(tp, acked) else {
        return;
    };
    let w = tp.snd_cwnd;
    tcp_cong_avoid_ai(tp, w, acked);
}

/// Linux `tcp_reno_ssthresh`: max(cwnd/2, 2). RFC 5681 eq. (4) uses
/// FlightSize/2; Linux (and hscc) use cwnd, which equals FlightSize when the
/// sender is cwnd-limited.
#[inline]
pub fn tcp_reno_ssthresh(tp: &TcpCc) -> u32 {
    (tp.snd_cwnd >> 1).max(2)
}

/// Linux `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd).
#[inline]
pub fn tcp_reno_undo_cwnd(tp: &TcpCc) -> u32 {
    tp.snd_cwnd.max(tp.prior_cwnd)
}

/// Linux `tcp_enter_cwr`, from `cong_avoid`: the sender enters CWR when the
/// hook returns ([`TcpCc::enter_cwr`]).
#[inline]
pub fn tcp_enter_cwr(tp: &mut TcpCc) {
    tp.enter_cwr = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(cwnd: u32, ssthresh: u32) -> TcpCc {
        let mut tp = TcpCc::new(1448, cwnd);
        tp.snd_ssthresh = ssthresh;
        tp.is_cwnd_limited = true;
        tp
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut t = tp(10, 12);
        assert_eq!(tcp_slow_start(&mut t, 5), 3);
        assert_eq!(t.snd_cwnd, 12);
        let mut t = tp(10, 100);
        assert_eq!(tcp_slow_start(&mut t, 5), 0);
        assert_eq!(t.snd_cwnd, 15);
    }

    #[test]
    fn cong_avoid_ai_adds_one_per_window() {
        let mut t = tp(10, 5);
        for _ in 0..9 {
            tcp_cong_avoid_ai(&mut t, 10, 1);
        }
        assert_eq!((t.snd_cwnd, t.snd_cwnd_cnt), (10, 9));
        tcp_cong_avoid_ai(&mut t, 10, 1);
        assert_eq!((t.snd_cwnd, t.snd_cwnd_cnt), (11, 0));
        // A stretch ACK of 25 segments at w = 11 gives +2 with 3 left over.
        tcp_cong_avoid_ai(&mut t, 11, 25);
        assert_eq!((t.snd_cwnd, t.snd_cwnd_cnt), (13, 3));
    }

    #[test]
    fn cong_avoid_ai_applies_stale_credit_gently() {
        let mut t = tp(10, 5);
        t.snd_cwnd_cnt = 50;
        tcp_cong_avoid_ai(&mut t, 10, 1);
        assert_eq!((t.snd_cwnd, t.snd_cwnd_cnt), (11, 1));
    }

    #[test]
    fn reno_cong_avoid_needs_cwnd_limited() {
        let mut t = tp(10, 5);
        t.is_cwnd_limited = false;
        tcp_reno_cong_avoid(&mut t, 0, 10);
        assert_eq!(t.snd_cwnd, 10);
    }

    #[test]
    fn reno_cong_avoid_crosses_ssthresh_with_leftover() {
        // 10 -> 12 by slow start, the remaining 3 go to the accumulator at w = 12.
        let mut t = tp(10, 12);
        tcp_reno_cong_avoid(&mut t, 0, 5);
        assert_eq!((t.snd_cwnd, t.snd_cwnd_cnt), (12, 3));
    }

    #[test]
    fn reno_ssthresh_halves_with_floor_two() {
        assert_eq!(tcp_reno_ssthresh(&tp(101, 5)), 50);
        assert_eq!(tcp_reno_ssthresh(&tp(3, 5)), 2);
        assert_eq!(tcp_reno_ssthresh(&tp(1, 5)), 2);
    }

    #[test]
    fn clamp_bounds_cwnd() {
        let mut t = tp(10, 1000);
        t.snd_cwnd_clamp = 12;
        tcp_slow_start(&mut t, 50);
        assert_eq!(t.snd_cwnd, 12);
    }
}
