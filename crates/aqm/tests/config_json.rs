use ecnlab_aqm::{QueueConfig, RedMode};

#[test]
fn test_queue_config_parses_tagged_json() {
    let q: QueueConfig = serde_json::from_str(r#"{"kind":"droptail","limit_pkts":100}"#).unwrap();
    assert!(matches!(q, QueueConfig::DropTail(p) if p.limit_pkts == Some(100) && p.limit_bytes.is_none()));
    let red = r#"{"kind":"red_star","limit_pkts":60,"min_th":5,"max_th":15,"max_p":0.1,"wq":0.002,
        "gentle":false,"wait":true,"mode":"byte","mean_pkt_bytes":1000,"link_rate_bps":1500000,"ecn":true}"#;
    let q: QueueConfig = serde_json::from_str(red).unwrap();
    assert!(matches!(q, QueueConfig::RedStar(p) if p.mode == RedMode::Byte && p.max_th == 15.0));
}

#[test]
fn test_queue_config_rejects_unknown_field() {
    let r = serde_json::from_str::<QueueConfig>(r#"{"kind":"droptail","limit_pkts":100,"bogus":1}"#);
    assert!(r.is_err(), "{r:?}");
}
