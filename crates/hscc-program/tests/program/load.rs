//! Building and loading programs, and running their hooks on a sender's view.

use std::path::PathBuf;

use hscc_cc::{CaState, ExternalProgram, TcpCc};

fn template(dir: &std::path::Path) -> PathBuf {
    let text = include_str!("../../../../python/hscc/templates/algorithm.bpf.c")
        .replace("__NAME__", "mycc");
    let p = dir.join("mycc.bpf.c");
    std::fs::write(&p, text).unwrap();
    p
}

/// A scratch directory for one test's program files, in the tests' environment.
fn scratch() -> tempfile::TempDir {
    crate::test_env();
    tempfile::tempdir().unwrap()
}

#[test]
fn the_template_loads_with_its_parameters_and_grows_as_reno() {
    let dir = scratch();
    let p = hscc_program::load(&template(dir.path())).unwrap();
    assert_eq!(p.name(), "mycc");
    assert_eq!(p.kernel_name().unwrap(), "mycc");
    let params: Vec<(String, u8, i64)> = p
        .params()
        .iter()
        .map(|q| (q.name.clone(), q.size, q.default as i64))
        .collect();
    assert_eq!(params, [("beta".into(), 4, 512), ("increase".into(), 4, 1)]);
    let reg = p.register(&[("beta".into(), 717.0)]).unwrap();
    let mut c = reg.connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    // Slow start: +1 per segment ACKed while cwnd-limited.
    tp.max_packets_out = 10;
    tp.is_cwnd_limited = true;
    c.cong_avoid(&mut tp, 0, 5);
    assert_eq!(tp.snd_cwnd, 15);
    // Loss: keep 717/1024 of 100 = 70.
    tp.snd_cwnd = 100;
    assert_eq!(c.ssthresh(&mut tp), 70);
    tp.snd_ssthresh = 70;
    tp.snd_cwnd = 70;
    tp.ca_state = CaState::Open;
    // Congestion avoidance: +1 after 70 segments ACKed.
    c.cong_avoid(&mut tp, 0, 69);
    assert_eq!(tp.snd_cwnd, 70);
    c.cong_avoid(&mut tp, 0, 1);
    assert_eq!(tp.snd_cwnd, 71);
    // Undo goes back to the window before the loss.
    assert_eq!(c.undo_cwnd(&mut tp), 100);
    assert!(c.fault().is_none());
}

/// A program with one hook replaced by `body` (the template otherwise).
fn with_cong_avoid(dir: &std::path::Path, name: &str, body: &str) -> PathBuf {
    let text =
        include_str!("../../../../python/hscc/templates/algorithm.bpf.c").replace("__NAME__", name);
    let start = text.find("void BPF_PROG(").unwrap();
    let start = start + text[start..].find("cong_avoid, struct sock *sk").unwrap();
    let open = start + text[start..].find('{').unwrap();
    let close = open + text[open..].find("\n}\n").unwrap();
    let text = format!("{}{{\n{body}\n{}", &text[..open], &text[close..]);
    let p = dir.join(format!("{name}.bpf.c"));
    std::fs::write(&p, text).unwrap();
    p
}

/// Run cong_avoid once on a cwnd-limited sender in congestion avoidance.
fn fault_of(path: &std::path::Path) -> String {
    let p = hscc_program::load(path).unwrap();
    let mut c = p.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    tp.snd_ssthresh = 5;
    tp.is_cwnd_limited = true;
    c.cong_avoid(&mut tp, 0, 1);
    assert_eq!(tp.snd_cwnd, 10, "a failed hook leaves the window alone");
    // Every hook after the first failure is skipped.
    c.cong_avoid(&mut tp, 0, 1);
    c.fault().expect("the hook failed")
}

#[test]
fn a_division_by_zero_gives_the_kernels_result_and_the_hook_goes_on() {
    let dir = scratch();
    // With acked = 1 and snd_cwnd = 10: BPF's 10 / 0 = 0, 10 % 0 = 10,
    // s32 MIN / -1 = MIN, MIN % -1 = 0, s64 -7 / 0 = 0, -7 % 0 = -7:
    // 0 + 10 + 1 + 1 + 1 + 1 = 14.
    let p = with_cong_avoid(
        dir.path(),
        "divzero",
        "\tstruct tcp_sock *tp = tcp_sk(sk);\n\
         \t__u32 z = acked - 1;\n\
         \t__s32 m1 = (__s32)z - 1, min = (__s32)0x80000000 + (__s32)z;\n\
         \t__s64 neg = (__s64)z - 7;\n\
         \ttp->snd_cwnd = tp->snd_cwnd / z + tp->snd_cwnd % z + (min / m1 == min)\n\
         \t\t+ (min % m1 == 0) + (neg / (__s64)z == 0) + (neg % (__s64)z == -7);",
    );
    let prog = hscc_program::load(&p).unwrap();
    let mut c = prog.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    c.cong_avoid(&mut tp, 0, 1);
    assert!(c.fault().is_none(), "{:?}", c.fault());
    assert_eq!(tp.snd_cwnd, 14);
}

#[test]
fn an_index_out_of_bounds_names_the_file_line_and_hook() {
    let dir = scratch();
    let p = with_cong_avoid(
        dir.path(),
        "oob",
        "\tstruct tcp_sock *tp = tcp_sk(sk);\n\t__u32 t[4] = {1, 2, 3, 4};\n\ttp->snd_cwnd += t[acked + 10];",
    );
    let f = fault_of(&p);
    assert!(
        f.contains("oob.bpf.c:") && f.contains("out of the array's bounds in cong_avoid"),
        "{f}"
    );
}

#[test]
fn a_crash_in_a_hook_is_a_report_and_the_process_goes_on() {
    let dir = scratch();
    let p = with_cong_avoid(
        dir.path(),
        "crash",
        "\tvolatile __u32 *nowhere = (volatile __u32 *)(unsigned long)(acked * 8);\n\t*nowhere = 1;",
    );
    let f = fault_of(&p);
    assert!(
        f.contains("crashed reading or writing address 0x8 in cong_avoid"),
        "{f}"
    );
    assert!(
        f.contains("crash.bpf.c:"),
        "the line from the object's line table: {f}"
    );
}

/// The template program loads and grows a window in slow start (10 + 1): what a
/// fault before it left behind does not stop the next program.
fn assert_the_template_runs(dir: &std::path::Path) {
    let ok = hscc_program::load(&template(dir)).unwrap();
    let mut c = ok.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    tp.max_packets_out = 10;
    tp.is_cwnd_limited = true;
    c.cong_avoid(&mut tp, 0, 1);
    assert!(
        c.fault().is_none() && tp.snd_cwnd == 11,
        "slow start: 10 + 1"
    );
}

/// `fault` begins at `path`'s line holding `needle` (at any line: `None`),
/// says `says` and ends naming `hook`.
fn assert_fault(fault: &str, path: &std::path::Path, needle: Option<&str>, says: &str, hook: &str) {
    let at = match needle {
        Some(n) => format!("{}:{} ", path.display(), line_of(path, n)),
        None => format!("{}:", path.display()),
    };
    assert!(
        fault.starts_with(&at) && fault.contains(says) && fault.ends_with(&format!("in {hook}")),
        "{at} … {says} … in {hook}: {fault}"
    );
}

/// The 1-based line of the first line of `path` that holds `needle`.
fn line_of(path: &std::path::Path, needle: &str) -> usize {
    1 + std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .position(|l| l.contains(needle))
        .unwrap()
}

#[test]
fn a_write_one_byte_past_the_private_area_faults_in_the_hook() {
    let dir = scratch();
    // acked = 1: byte 103 is the area's last (ICSK_CA_PRIV_SIZE = 104), 104 is past it.
    let p = with_cong_avoid(
        dir.path(),
        "pastca",
        "\tvolatile __u8 *ca = (volatile __u8 *)inet_csk_ca(sk);\n\
         \tca[102 + acked] = 1;\n\
         \tca[103 + acked] = 1;",
    );
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        Some("ca[103 + acked]"),
        "read or wrote past the 104 bytes of inet_csk_ca(sk)",
        "cong_avoid",
    );
    // The process goes on: a program runs after it.
    assert_the_template_runs(dir.path());
}

#[test]
fn a_write_past_a_socket_storage_value_faults_in_the_hook() {
    let dir = scratch();
    let p = with_cong_avoid(
        dir.path(),
        "paststorage",
        "\tstatic struct {\n\
         \t\t__uint(type, BPF_MAP_TYPE_SK_STORAGE);\n\
         \t\t__uint(map_flags, BPF_F_NO_PREALLOC);\n\
         \t\t__type(key, int);\n\
         \t\t__type(value, __u64);\n\
         \t} st;\n\
         \tvolatile __u8 *v = bpf_sk_storage_get(&st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);\n\
         \tif (!v)\n\
         \t\treturn;\n\
         \tv[6 + acked] = 1;\n\
         \tv[7 + acked] = 1;",
    );
    let f = fault_of(&p);
    assert_fault(&f, &p, Some("v[7 + acked]"), "", "cong_avoid");
}

#[test]
fn a_run_past_the_sample_a_hook_is_given_faults_in_the_hook() {
    let dir = scratch();
    let empty = "const struct ack_sample *sample)\n{\n}";
    let text = include_str!("../../../../python/hscc/templates/algorithm.bpf.c")
        .replace("__NAME__", "pastsample");
    assert!(text.contains(empty), "the template changed");
    let text = text.replace(
        empty,
        "const struct ack_sample *sample)\n{\n\
         \tfor (int i = 0; i < 16384; i++)\n\
         \t\t((volatile __u8 *)sample)[i] = 0;\n}",
    );
    let p = dir.path().join("pastsample.bpf.c");
    std::fs::write(&p, text).unwrap();
    let prog = hscc_program::load(&p).unwrap();
    let mut c = prog.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    c.pkts_acked(
        &mut tp,
        &hscc_cc::AckSample {
            pkts_acked: 1,
            rtt_us: 1000,
            in_flight: 10,
        },
    );
    let f = c.fault().expect("the write ran into the guard page");
    let sample = "(volatile __u8 *)sample)[i]";
    assert_fault(
        &f,
        &p,
        Some(sample),
        "crashed reading or writing address",
        "pkts_acked",
    );
}

/// The template with `global` declared after its parameters and cong_avoid's
/// body replaced by `body`.
fn with_global(dir: &std::path::Path, name: &str, global: &str, body: &str) -> PathBuf {
    let p = with_cong_avoid(dir, name, body);
    let text = std::fs::read_to_string(&p).unwrap();
    let params = "const volatile __u32 beta = 512;";
    let at = text.find(params).expect("the template changed");
    let at = at + text[at..].find('\n').unwrap() + 1;
    std::fs::write(&p, format!("{}{global}\n{}", &text[..at], &text[at..])).unwrap();
    p
}

#[test]
fn a_write_one_byte_past_the_last_global_faults_in_the_hook() {
    let dir = scratch();
    // The program's only zero-initialised global, so the last of its
    // writable data: 32 bytes, 32-aligned, ending where the guard page begins.
    // acked = 1: byte 31 is its last, 32 is past it. Through a pointer, which
    // the bounds sanitizer cannot check.
    let p = with_global(
        dir.path(),
        "pastglobal",
        "__u64 hist[4];",
        "\tvolatile __u8 *h = (volatile __u8 *)hist;\n\
         \th[30 + acked] = 1;\n\
         \th[31 + acked] = 1;",
    );
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        Some("h[31 + acked]"),
        "read or wrote past the end of the program's globals",
        "cong_avoid",
    );
}

#[test]
fn a_write_before_the_first_global_faults_in_the_hook() {
    let dir = scratch();
    // Downwards through every global of the program and the pad below them.
    let p = with_global(
        dir.path(),
        "beforeglobal",
        "__u64 hist[4];",
        "\tvolatile __u8 *h = (volatile __u8 *)hist;\n\
         \tfor (long i = 1; i < (1L << 20); i++)\n\
         \t\th[-i * acked] = 0;",
    );
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        Some("h[-i * acked]"),
        "read or wrote before the start of the program's globals",
        "cong_avoid",
    );
}

#[test]
fn a_local_array_overflowed_by_a_few_bytes_is_named_by_its_function_and_hook() {
    let dir = scratch();
    // acked = 1: 12 bytes past the array, through a pointer the bounds
    // sanitizer cannot check: over the padding above it (8 bytes, with gcc)
    // into the canary, which stops the function's return.
    let p = with_cong_avoid(
        dir.path(),
        "stackover",
        "\tstruct tcp_sock *tp = tcp_sk(sk);\n\
         \t__u8 buf[16];\n\
         \tvolatile __u8 *b = buf;\n\
         \tfor (__u32 i = 0; i < 16 + 12 * acked; i++)\n\
         \t\tb[i] = (__u8)i;\n\
         \ttp->snd_cwnd += b[acked];",
    );
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        None,
        "(stackover_cong_avoid): wrote past the end of a local array",
        "cong_avoid",
    );
    // The process goes on, and so do hooks on the same thread's stack.
    assert_the_template_runs(dir.path());
}

#[test]
fn a_local_array_written_far_past_its_end_faults_at_the_top_of_the_hooks_stack() {
    let dir = scratch();
    // Past the canary, the function's return address and every frame above
    // it: the hook's stack ends in an inaccessible page, before any of the
    // simulator's frames.
    let p = with_cong_avoid(
        dir.path(),
        "stackfar",
        "\t__u8 buf[16];\n\
         \tvolatile __u8 *b = buf;\n\
         \tfor (__u32 i = 0; i < (1U << 20); i++)\n\
         \t\tb[i * acked] = 0;",
    );
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        Some("b[i * acked]"),
        "wrote past the top of the hook's stack",
        "cong_avoid",
    );
}

#[test]
fn a_recursion_without_end_runs_out_of_the_hooks_stack_and_is_named() {
    let dir = scratch();
    // Not a tail call (the sum after it), and a frame the compiler keeps (the
    // volatile array): each call takes stack until the page below its bottom.
    let p = with_cong_avoid(
        dir.path(),
        "recurse",
        "\ttcp_sk(sk)->snd_cwnd += deeper(acked);",
    );
    let text = std::fs::read_to_string(&p).unwrap();
    let hook = text
        .find("SEC(\"struct_ops\")\nvoid BPF_PROG(recurse_cong_avoid")
        .unwrap();
    let helper = "static __attribute__((noinline)) __u32 deeper(__u32 n)\n{\n\
                  \tvolatile __u32 keep[8];\n\tkeep[n & 7] = n;\n\
                  \treturn deeper(n + 1) + keep[n & 7];\n}\n\n";
    std::fs::write(&p, format!("{}{helper}{}", &text[..hook], &text[hook..])).unwrap();
    let f = fault_of(&p);
    assert_fault(
        &f,
        &p,
        None,
        "(deeper): ran out of the hook's 256 KiB stack",
        "cong_avoid",
    );
}

#[test]
fn a_window_of_zero_is_refused_by_name() {
    let dir = scratch();
    let p = with_cong_avoid(dir.path(), "zero", "\ttcp_sk(sk)->snd_cwnd = 0;");
    assert!(
        fault_of(&p).ends_with("cong_avoid set snd_cwnd to 0"),
        "{}",
        fault_of(&p)
    );
}

#[test]
fn build_errors_name_the_line_and_a_missing_helper() {
    let dir = scratch();
    let p = with_cong_avoid(dir.path(), "syntax", "\tthis is not C;");
    let e = hscc_program::load(&p).unwrap_err();
    assert!(
        e.contains(&format!("{}:", p.display())) && e.contains("error"),
        "{e}"
    );
    let p = with_cong_avoid(dir.path(), "helper", "\tbpf_get_current_pid_tgid();");
    let e = hscc_program::load(&p).unwrap_err();
    assert!(
        e.contains("bpf_get_current_pid_tgid is not provided by hscc's simulator"),
        "{e}"
    );
    let p = with_cong_avoid(
        dir.path(),
        "kfunc",
        "\textern void tcp_enter_cwr(struct sock *sk) __ksym;\n\ttcp_enter_cwr(sk);",
    );
    let e = hscc_program::load(&p).unwrap_err();
    assert!(e.contains("tcp_enter_cwr is not provided"), "{e}");
}

#[test]
fn the_c_library_is_refused_by_symbol_and_line() {
    let dir = scratch();
    let body = "\tstruct tcp_sock *tp = tcp_sk(sk);\n\
                \tif (acked > 2)\n\
                \t\tprintf(\"cwnd %u\\n\", tp->snd_cwnd);\n\
                \ttp->snd_cwnd += rand() % 2;";
    let text = std::fs::read_to_string(with_cong_avoid(dir.path(), "libc", body)).unwrap();
    let p = dir.path().join("libc.bpf.c");
    std::fs::write(
        &p,
        format!("#include <stdio.h>\n#include <stdlib.h>\n{text}"),
    )
    .unwrap();
    let line = |needle: &str| {
        1 + std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .position(|l| l.contains(needle))
            .unwrap()
    };
    let e = hscc_program::load(&p).unwrap_err();
    for (symbol, at) in [("printf", line("printf(")), ("rand", line("rand()"))] {
        let want = format!(
            "{}:{at}: {symbol} is not provided by hscc's simulator",
            p.display()
        );
        assert!(e.contains(&want), "{want} in {e}");
    }
    assert!(e.contains("(docs/programs.md)"), "{e}");
    // bpf_printk, a struct copy (memcpy) and a 128-bit division (libgcc) build.
    let p = with_cong_avoid(
        dir.path(),
        "builtins",
        "\tstruct tcp_sock *tp = tcp_sk(sk);\n\
         \tstruct { __u64 a[40]; } x = {{0}}, y;\n\
         \tx.a[acked % 40] = tp->snd_cwnd;\n\
         \ty = x;\n\
         \tunsigned __int128 w = (unsigned __int128)y.a[acked % 40] << 64;\n\
         \tbpf_printk(\"cwnd %u\", tp->snd_cwnd);\n\
         \ttp->snd_cwnd = (__u32)(w / ((unsigned __int128)acked << 64)) + 1;",
    );
    let prog = hscc_program::load(&p).unwrap();
    let mut c = prog.register(&[]).unwrap().connect();
    let mut tp = TcpCc::new(1448, 10);
    c.init(&mut tp);
    c.cong_avoid(&mut tp, 0, 1);
    assert!(c.fault().is_none(), "{:?}", c.fault());
    assert_eq!(tp.snd_cwnd, 11, "10 << 64 / 1 << 64 + 1");
}

#[test]
fn a_program_without_a_required_hook_is_refused() {
    let dir = scratch();
    let text = include_str!("../../../../python/hscc/templates/algorithm.bpf.c")
        .replace("__NAME__", "noundo")
        .replace("\t.undo_cwnd = (void *)noundo_undo_cwnd,\n", "");
    let p = dir.path().join("noundo.bpf.c");
    std::fs::write(&p, text).unwrap();
    let e = hscc_program::load(&p).unwrap_err();
    assert!(
        e.contains("leaves out undo_cwnd, which the kernel requires"),
        "{e}"
    );
}

#[test]
fn a_build_is_cached_by_content() {
    let dir = scratch();
    let p = template(dir.path());
    let a = hscc_program::build(&p).unwrap();
    let b = hscc_program::build(&p).unwrap();
    assert_eq!(a.object, b.object);
    std::fs::write(
        &p,
        std::fs::read_to_string(&p).unwrap() + "\n/* changed */\n",
    )
    .unwrap();
    let c = hscc_program::build(&p).unwrap();
    assert_ne!(a.object, c.object);
}

#[test]
fn a_build_is_cached_by_the_contents_of_the_headers_it_includes() {
    let dir = scratch();
    let p = template(dir.path());
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("#include \"mycc_step.h\"\n{text}")).unwrap();
    let header = dir.path().join("mycc_step.h");
    std::fs::write(&header, "#define MYCC_STEP 1\n").unwrap();
    let a = hscc_program::build(&p).unwrap();
    assert_eq!(hscc_program::build(&p).unwrap().object, a.object);
    std::fs::write(&header, "#define MYCC_STEP 2\n").unwrap();
    let b = hscc_program::build(&p).unwrap();
    assert_ne!(
        a.object, b.object,
        "an edited header must rebuild the program"
    );
    // Back to the first contents: the first build, from the cache.
    std::fs::write(&header, "#define MYCC_STEP 1\n").unwrap();
    assert_eq!(hscc_program::build(&p).unwrap().object, a.object);
    std::fs::remove_file(&header).unwrap();
    let err = hscc_program::build(&p).unwrap_err().to_string();
    assert!(err.contains("mycc_step.h"), "{err}");
}

#[test]
fn a_hook_that_never_returns_is_cut_off_and_named() {
    let dir = scratch();
    let p = with_cong_avoid(
        dir.path(),
        "spin",
        "\tvolatile __u32 n = 0;\n\twhile (acked)\n\t\tn++;",
    );
    let t = std::time::Instant::now();
    let f = fault_of(&p);
    assert!(
        f.contains("spin.bpf.c:") && f.contains("did not return within 1 s"),
        "{f}"
    );
    assert!(f.ends_with("in cong_avoid"), "{f}");
    assert!(t.elapsed() < std::time::Duration::from_secs(30));
}
