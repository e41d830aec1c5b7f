//! Path impairments end to end in the engine: each action at a link of a
//! dumbbell, its count in the link's record and what the endpoints saw.

mod common;

use common::*;
use ecnlab_sim::impair::ImpairAction;
use ecnlab_sim::impair_link::ImpairCount;
use ecnlab_sim::spec::{ImpairSpec, SimSpec};
use ecnlab_sim::{RunOutput, Simulation};
use ecnlab_tcp::{EcnMode, TcpConfig};

fn spec(ecn: EcnMode, impairments: Vec<ImpairSpec>) -> SimSpec {
    let tcp = TcpConfig { ecn, ..Default::default() };
    let mut s = dumbbell(1, 10_000_000, 5 * MS, droptail(1000), tcp, 2 * SEC);
    s.impairments = impairments;
    s
}

fn at(link: &str, action: ImpairAction) -> ImpairSpec {
    ImpairSpec { link: link.into(), action, fraction: 1.0, from_ns: 0, until_ns: None, flows: vec![] }
}

fn run(spec: SimSpec) -> RunOutput {
    Simulation::new(spec).expect("valid spec").run().expect("run")
}

/// The counts of the impairments of `link`.
fn counts(out: &RunOutput, link: &str) -> Vec<ImpairCount> {
    let l = out.links.iter().find(|l| l.name == link).expect("link");
    l.impairments.clone().expect("a link with impairments has counts")
}

#[test]
fn test_links_without_impairments_have_no_record() {
    let out = run(spec(EcnMode::Classic, vec![at("R1->R2", ImpairAction::Bleach)]));
    assert!(out.links.iter().filter(|l| l.name != "R1->R2").all(|l| l.impairments.is_none()));
}

#[test]
fn test_bleach_hides_ect_from_the_path_and_ce_all_marks_every_ect_packet() {
    let out = run(spec(EcnMode::Classic, vec![at("s1->R1", ImpairAction::Bleach), at("R1->R2", ImpairAction::CeAll)]));
    let f = &out.flows[0];
    assert!(counts(&out, "s1->R1")[0].rewritten >= f.data_packets_sent, "every ECT data packet bleached");
    assert_eq!(counts(&out, "R1->R2")[0].rewritten, 0, "nothing ECN-capable left to mark");
    assert_eq!(f.ce_received, 0);
    let out = run(spec(EcnMode::Classic, vec![at("R1->R2", ImpairAction::CeAll)]));
    let (f, c) = (&out.flows[0], counts(&out, "R1->R2")[0]);
    assert!(c.rewritten > 0 && c.dropped == 0);
    assert_eq!(f.ce_received, c.rewritten, "each rewritten packet arrives CE");
    assert!(f.ecn_reductions > 0);
}

#[test]
fn test_ect_remarking_in_both_directions_counts_the_same_packets() {
    let out = run(spec(
        EcnMode::Classic,
        vec![at("s1->R1", ImpairAction::Ect0ToEct1), at("R1->R2", ImpairAction::Ect1ToEct0)],
    ));
    let (a, b) = (counts(&out, "s1->R1")[0], counts(&out, "R1->R2")[0]);
    assert!(a.rewritten > 0);
    assert_eq!(a.rewritten, b.rewritten, "every ECT(1) made on the first link is made ECT(0) on the second");
    assert!(out.flows[0].bytes_delivered > 0);
}

#[test]
fn test_dropping_ecn_setup_syns_or_synacks_keeps_the_connection_from_opening() {
    for (link, action) in [("s1->R1", ImpairAction::DropEcnSyn), ("R2->R1", ImpairAction::DropEcnSynack)] {
        let out = run(spec(EcnMode::Classic, vec![at(link, action)]));
        let c = counts(&out, link)[0];
        assert!(c.dropped >= 1 && c.rewritten == 0, "{action:?}: {c:?}");
        assert_eq!(out.flows[0].bytes_delivered, 0, "{action:?}: the endpoints keep asking for ECN");
        assert_eq!(out.flows[0].pkts_dropped, c.dropped, "{action:?}: the census counts the drops");
    }
    let out = run(spec(EcnMode::Off, vec![at("s1->R1", ImpairAction::DropEcnSyn)]));
    assert_eq!(counts(&out, "s1->R1")[0].dropped, 0, "a non-ECN SYN passes");
    assert!(out.flows[0].bytes_delivered > 0);
}

#[test]
fn test_clearing_ece_or_ace_on_the_acks_hides_the_marks_from_a_classic_sender() {
    for action in [ImpairAction::ClearEce, ImpairAction::ZeroAce] {
        let out = run(spec(EcnMode::Classic, vec![at("R1->R2", ImpairAction::CeAll), at("R2->R1", action)]));
        let f = &out.flows[0];
        assert!(f.ce_received > 0 && f.ece_sent > 0);
        assert!(counts(&out, "R2->R1")[0].rewritten > 0, "{action:?}");
        assert_eq!(f.ecn_reductions, 0, "{action:?}: no ECE reaches the sender");
    }
}

#[test]
fn test_accecn_option_strip_and_zero_act_on_the_segments_carrying_it() {
    for action in [ImpairAction::StripAccecnOption, ImpairAction::ZeroAccecnOption] {
        let out = run(spec(EcnMode::AccEcn, vec![at("R1->R2", ImpairAction::CeAll), at("R2->R1", action)]));
        let c = counts(&out, "R2->R1")[0];
        assert!(c.rewritten > 0 && c.dropped == 0, "{action:?}: {c:?}");
        assert_eq!(out.flows[0].accecn_ceb.unwrap_or(0), 0, "{action:?}: the sender learns no CE bytes from it");
        assert!(out.flows[0].bytes_delivered > 0);
    }
}

#[test]
fn test_window_and_flows_choose_the_packets() {
    let mut late = at("R1->R2", ImpairAction::CeAll);
    late.from_ns = 3 * SEC; // after the end of the run
    let mut other = at("R1->R2", ImpairAction::CeAll);
    other.flows = vec!["bulk1".into()];
    let out = run(spec(EcnMode::Classic, vec![late, other]));
    let c = counts(&out, "R1->R2");
    assert_eq!(c[0].rewritten, 0);
    assert!(c[1].rewritten > 0);
}

#[test]
fn test_same_seed_same_fraction_same_result() {
    let mut some = at("R1->R2", ImpairAction::CeAll);
    some.fraction = 0.3;
    let json = serde_json::to_string(&spec(EcnMode::Classic, vec![some])).unwrap();
    let a = ecnlab_sim::run_json(&json).unwrap();
    assert_eq!(a, ecnlab_sim::run_json(&json).unwrap());
    let out = run(serde_json::from_str(&json).unwrap());
    let c = counts(&out, "R1->R2")[0];
    assert!(c.rewritten > 0 && c.rewritten < out.links.iter().find(|l| l.name == "R1->R2").unwrap().packets);
}

#[test]
fn test_bad_impairments_name_the_field() {
    let bad = |m: ImpairSpec| Simulation::new(spec(EcnMode::Classic, vec![m])).err().expect("refused").to_string();
    let mut m = at("R1->R9", ImpairAction::Bleach);
    assert_eq!(bad(m.clone()), "impairments[0].link = R1->R9: no such link");
    m.link = "R1->R2".into();
    m.fraction = 0.0;
    assert_eq!(bad(m.clone()), "impairments[0].fraction = 0: must be in (0, 1]");
    m.fraction = 1.0;
    m.from_ns = 5;
    m.until_ns = Some(5);
    assert_eq!(bad(m.clone()), "impairments[0].until_ns = 5: must be after from_ns");
    m.until_ns = None;
    m.flows = vec!["nope".into()];
    assert_eq!(bad(m), "impairments[0].flows[0] = nope: no such flow");
}
