# The ecnlab benchmark dumbbell for ns-2 (2.35): N NewReno bulk flows s_i -> r_i
# through R1 -> R2 (rate R, delay D, RED with ECN), access links 10xR / 1 ms.
#
# Usage: ns ns2_dumbbell.tcl PARAMS.tcl
# PARAMS.tcl is generated from an ecnlab scenario by ecnlab.bench.ns2
# (`ecnlab bench peers` writes it; never edit it by hand): it sets the array P.
# Prints one JSON line: per-flow goodput after the warm-up, Jain's index,
# bottleneck utilisation, marks, early/forced/overflow drops, retransmissions,
# timeouts, bottleneck packets, wall time and peak memory (VmHWM).
#
# ns-2 facts used (docs/performance.md): one-way TCP agents count in packets of
# packetSize_ payload bytes (+40 header); RED with use_mark_p_ marks an ECT
# packet only while the unmodified probability is below mark_p_, so every
# early "drop" it reports is a real drop; QueueMonitor/ED (attach-fmon with
# early drops) separates early drops (epdrops_) from the rest (overflow).

set wall0 [clock milliseconds]
source [lindex $argv 0]

set ns [new Simulator]

# --- TCP (before any agent is created) ------------------------------------------
Agent/TCP set packetSize_ $P(mss)
Agent/TCP set windowInit_ $P(init_cwnd)
Agent/TCP set window_ $P(rwnd_pkts)
Agent/TCP set maxcwnd_ 0
Agent/TCP set ecn_ $P(ecn)
Agent/TCP set tcpTick_ $P(clock_granularity)
Agent/TCP set minrto_ $P(min_rto)
Agent/TCP set rtxcur_init_ $P(initial_rto)
Agent/TCP set maxrto_ $P(max_rto)
Agent/TCP set numdupacks_ $P(dupack_threshold)
Agent/TCPSink/DelAck set interval_ $P(delack_timeout)

# --- RED at the bottleneck ------------------------------------------------------
Queue/RED set bytes_ $P(red_bytes)
Queue/RED set queue_in_bytes_ $P(red_bytes)
Queue/RED set thresh_ $P(min_th)
Queue/RED set maxthresh_ $P(max_th)
Queue/RED set linterm_ [expr {1.0 / $P(max_p)}]
Queue/RED set q_weight_ $P(wq)
Queue/RED set gentle_ $P(gentle)
Queue/RED set wait_ $P(wait)
Queue/RED set mean_pktsize_ $P(mean_pkt_size)
Queue/RED set setbit_ $P(red_ecn)
Queue/RED set use_mark_p_ true
Queue/RED set mark_p_ $P(mark_p)

# --- topology -------------------------------------------------------------------
set R1 [$ns node]
set R2 [$ns node]
$ns simplex-link $R1 $R2 $P(rate_bps) $P(delay_s) RED
$ns simplex-link $R2 $R1 $P(rate_bps) $P(delay_s) DropTail
$ns queue-limit $R1 $R2 $P(limit)
$ns queue-limit $R2 $R1 $P(reverse_limit)
for {set i 0} {$i < $P(pairs)} {incr i} {
    set s($i) [$ns node]
    set r($i) [$ns node]
    $ns duplex-link $s($i) $R1 $P(access_rate_bps) $P(access_delay_s) DropTail
    $ns duplex-link $R2 $r($i) $P(access_rate_bps) $P(access_delay_s) DropTail
    $ns queue-limit $s($i) $R1 $P(access_limit)
    $ns queue-limit $R1 $s($i) $P(access_limit)
    $ns queue-limit $R2 $r($i) $P(access_limit)
    $ns queue-limit $r($i) $R2 $P(access_limit)
}
set bottleneck [$ns link $R1 $R2]
set qm [$ns makeflowmon Fid]
$ns attach-fmon $bottleneck $qm 1

# --- flows ----------------------------------------------------------------------
set n [llength $P(flow_pairs)]
for {set f 0} {$f < $n} {incr f} {
    set i [lindex $P(flow_pairs) $f]
    set tcp($f) [new Agent/TCP/Newreno]
    $tcp($f) set fid_ $f
    if {$P(delayed_ack)} { set sink($f) [new Agent/TCPSink/DelAck] } else { set sink($f) [new Agent/TCPSink] }
    $ns attach-agent $s($i) $tcp($f)
    $ns attach-agent $r($i) $sink($f)
    $ns connect $tcp($f) $sink($f)
    set ftp($f) [$tcp($f) attach-app FTP]
    $ns at [lindex $P(flow_starts) $f] "$ftp($f) start"
}

# --- measurement ----------------------------------------------------------------
proc acked {f} {
    global tcp
    set a [$tcp($f) set ack_]
    expr {$a < 0 ? 0 : $a}
}

proc at_warmup {} {
    global n ack0 qm bdep0
    for {set f 0} {$f < $n} {incr f} { set ack0($f) [acked $f] }
    set bdep0 [$qm set bdepartures_]
}

proc peak_kib {} {
    set fh [open /proc/self/status]
    set text [read $fh]
    close $fh
    if {[regexp {VmHWM:\s+(\d+)} $text -> kib]} { return $kib }
    return 0
}

proc finish {} {
    global n P qm tcp ack0 bdep0 wall0 setup_ms
    set span [expr {$P(duration) - $P(warmup)}]
    set goodput {}
    set sum 0.0
    set sumsq 0.0
    set rtx 0
    set rto 0
    for {set f 0} {$f < $n} {incr f} {
        set g [expr {([acked $f] - $ack0($f)) * $P(mss) * 8.0 / $span}]
        lappend goodput [format %.1f $g]
        set sum [expr {$sum + $g}]
        set sumsq [expr {$sumsq + $g * $g}]
        incr rtx [$tcp($f) set nrexmitpack_]
        incr rto [$tcp($f) set nrexmit_]
    }
    set jain [expr {$sumsq > 0 ? $sum * $sum / ($n * $sumsq) : 0.0}]
    # bdepartures_ is a 32-bit counter in Tcl: unwrap one wrap at most per warm-up span.
    set bytes [expr {[$qm set bdepartures_] - $bdep0}]
    if {$bytes < 0} { set bytes [expr {$bytes + 4294967296}] }
    set util [expr {$bytes * 8.0 / ($P(rate_bps) * $span)}]
    set drops [$qm set pdrops_]
    set early [$qm set epdrops_]
    set wall [expr {([clock milliseconds] - $wall0) / 1000.0}]
    puts [format {{"tool": "ns-2", "goodput_bps": [%s], "jain": %.6f, "utilisation": %.6f, "marks": %d, "early_drops": %d, "forced_drops": 0, "overflow_drops": %d, "retransmits": %d, "timeouts": %d, "bottleneck_packets": %d, "setup_s": %.3f, "wall_s": %.3f, "peak_rss_mib": %.1f}} \
        [join $goodput ", "] $jain $util [$qm set pmarks_] $early [expr {$drops - $early}] $rtx $rto \
        [$qm set pdepartures_] [expr {$setup_ms / 1000.0}] $wall [expr {[peak_kib] / 1024.0}]]
    exit 0
}

$ns at $P(warmup) "at_warmup"
$ns at $P(duration) "finish"
set setup_ms [expr {[clock milliseconds] - $wall0}]
$ns run
