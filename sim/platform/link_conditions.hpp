#pragma once
// A link's conditions beside its bandwidth and latency (`link_conditions`): the rate that packet loss leaves a
// TCP flow.

namespace dtsim::platform {

/// The rate of a link that loses `loss` of its packets: at most one TCP flow's under that loss (Mathis, Semke,
/// Mahdavi and Ott 1997, "The macroscopic behavior of the TCP congestion avoidance algorithm", equation 3):
/// 1.22 MSS / (RTT sqrt(loss)), with an MSS of 1460 bytes (Ethernet's 1500-byte frames less the headers) and a
/// round trip of twice the link's latency; `streams` such flows side by side (a transfer striped over them) carry
/// `streams` times that. A link without latency is not capped.
double bandwidth_under_loss(double bandwidth, double latency_s, double loss, int streams);

}  // namespace dtsim::platform
