#[test] fn placeholder() {}
