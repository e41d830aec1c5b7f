//! TCP rules where the stacks differ, one file per mechanism, each an enum
//! whose variants are the stacks' behaviours, its header the rule's spec with
//! its sources. The personalities (`personality.rs`) choose a variant each.

pub mod accecn_checks;
pub mod syn_fallback;
