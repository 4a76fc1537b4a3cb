# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""The one list of RTL files per top-level module.

Tests (tests/simrun.py), lint (tools/lint.py) and synthesis (syn/synth.py) all take their
file lists from here, so a file is registered once. A top names its own files and the
tops it instantiates (``deps``); ``sources()`` resolves the closure, packages first.

``synth`` holds the parameter overrides used for the synthesis report (None: the top is
not synthesized on its own, e.g. a test wrapper). ``lint`` holds extra parameter sets
that ``make lint`` checks besides the defaults.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Top:
    files: tuple[str, ...]
    deps: tuple[str, ...] = ()
    synth: dict | None = field(default_factory=dict)
    lint: tuple[dict, ...] = ()
    area: str = "common"


TOPS: dict[str, Top] = {}


def _top(name: str, files, deps=(), synth=None, lint=(), area="common", no_synth=False):
    if name != "qrdma_pkg":
        deps = ("qrdma_pkg",) + tuple(deps)  # every block may use the shared package
    TOPS[name] = Top(tuple(files), tuple(deps), None if no_synth else dict(synth or {}),
                     tuple(lint), area)


# ---------------------------------------------------------------- common blocks
_top("qrdma_pkg", ["rtl/common/qrdma_pkg.sv"], no_synth=True)
_top("qrdma_sdp_ram", ["rtl/common/qrdma_sdp_ram.sv"],
     synth={"WIDTH": 64, "DEPTH": 2048},
     lint=({"WIDTH": 8, "DEPTH": 16}, {"WIDTH": 8, "DEPTH": 16, "OUT_REG": 1, "RDW_NEW": 1},
           {"WIDTH": 8, "DEPTH": 16, "OUT_REG": 1, "BE_W": 2},
           {"WIDTH": 8, "DEPTH": 16, "OUT_REG": 1, "RDW_ANY": 1},
           {"WIDTH": 8, "DEPTH": 16, "OUT_REG": 1, "RDW_NEW": 1, "BE_W": 2, "BANKS": 4}))
_top("qrdma_sync_fifo", ["rtl/common/qrdma_sync_fifo.sv"], deps=["qrdma_sdp_ram"],
     synth={"WIDTH": 64, "DEPTH": 512},
     lint=({"WIDTH": 8, "DEPTH": 4}, {"WIDTH": 8, "DEPTH": 1}))
_top("qrdma_reg_slice", ["rtl/common/qrdma_reg_slice.sv"], synth={"WIDTH": 64},
     lint=({"WIDTH": 1},))
_top("qrdma_arb_fixed", ["rtl/common/qrdma_arb_fixed.sv"], synth={"N": 16},
     lint=({"N": 1}, {"N": 5}, {"N": 6, "CHAIN": 0}, {"N": 66, "CHAIN": 0}))
_top("qrdma_arb_rr", ["rtl/common/qrdma_arb_rr.sv"], deps=["qrdma_arb_fixed"], synth={"N": 16},
     lint=({"N": 1}, {"N": 5}))
_top("qrdma_id_pool", ["rtl/common/qrdma_id_pool.sv"], deps=["qrdma_sync_fifo"],
     synth={"NUM_IDS": 512},
     lint=({"NUM_IDS": 16, "FIRST_ID": 4}, {"NUM_IDS": 1},
           {"NUM_IDS": 100, "FIRST_ID": 128, "RAM_MIN_DEPTH": 64}))
_top("qrdma_multi_queue_pipe", ["rtl/common/qrdma_multi_queue_pipe.sv"],
     deps=["qrdma_sdp_ram", "qrdma_mem_2w"],
     synth={"NUM_QUEUES": 66, "NUM_ENTRIES": 2048},
     lint=({"NUM_QUEUES": 2, "NUM_ENTRIES": 8}, {"NUM_QUEUES": 1, "NUM_ENTRIES": 2},
           {"NUM_QUEUES": 5, "NUM_ENTRIES": 12}))
_top("qrdma_crc32_512", ["rtl/common/qrdma_crc32_512.sv"], synth={},
     lint=({"DATA_W": 64}, {"DATA_W": 24}, {"DATA_W": 8}, {"TAB_BITS": 4},
           {"DATA_W": 64, "TAB_BITS": 4}, {"DATA_PIPE": 1, "KEEP_ZERO": 1},
           {"DATA_W": 24, "TAB_BITS": 8, "DATA_PIPE": 1},
           {"DATA_PIPE": 1, "KEEP_ZERO": 1, "CORR_PIPE": 1}, {"DATA_W": 64, "CORR_PIPE": 1},
           {"DATA_W": 8, "CORR_PIPE": 1}))
_top("qrdma_burst_seq", ["rtl/common/qrdma_burst_seq.sv"], deps=["qrdma_sync_fifo"],
     synth={"ADDR_W": 18, "USER_W": 6, "DEPTH": 4},
     lint=({"ADDR_W": 64}, {"ADDR_W": 12, "USER_W": 3, "DEPTH": 1}))
_top("qrdma_axis_demux", ["rtl/common/qrdma_axis_demux.sv"], synth={"N": 2},
     lint=({"N": 1}, {"N": 3}))
_top("qrdma_axis_arb_mux", ["rtl/common/qrdma_axis_arb_mux.sv"],
     deps=["qrdma_arb_rr", "qrdma_reg_slice"], synth={"N": 2}, lint=({"N": 1}, {"N": 3}))
_top("qrdma_init_sweep", ["rtl/common/qrdma_init_sweep.sv"], synth={"N": 1024},
     lint=({"N": 1}, {"N": 5}))
_top("qrdma_mem_2w", ["rtl/common/qrdma_mem_2w.sv"], synth={"WIDTH": 1, "DEPTH": 1024},
     lint=({"WIDTH": 3, "DEPTH": 5},
           {"WIDTH": 4, "DEPTH": 1024, "A_LEAD": 1, "B_LEAD": 1, "RD_REG": 1},
           {"WIDTH": 2, "DEPTH": 16, "B_LEAD": 1, "SUB_DEPTH": 4},
           {"WIDTH": 3, "DEPTH": 8, "RD_REG": 1, "SUB_DEPTH": 8}))

# ---------------------------------------------------------------- formats (generated)
if "qrdma_fmt_pkg" not in TOPS:
    _top("qrdma_fmt_pkg", ["rtl/host/qrdma_fmt_pkg.sv"], no_synth=True, area="host")
_top("qrdma_bench_pkg", ["rtl/common/qrdma_bench_pkg.sv"], deps=["qrdma_fmt_pkg"], no_synth=True)
_top("qrdma_stamp", ["rtl/common/qrdma_stamp.sv"], deps=["qrdma_fmt_pkg", "qrdma_bench_pkg"],
     synth={"KIND": 3}, lint=({"KIND": 0}, {"KIND": 1}, {"KIND": 2}))

# ---------------------------------------------------------------- registers (generated)
# peakrdl-regblock blocks from regs/qrdma_regs.rdl (tools/gen_regs.py, docs/registers.md).
# Verilator reads VERILATOR_CONFIG (its waivers for these files) with every file list
# that holds one of them: see verilator_sources().
GENERATED_DIR = "rtl/generated/"
VERILATOR_CONFIG = "rtl/generated.vlt"
# (synthesized inside their users, qrdma_host_rd and qrdma_nic_regs)
_top("qrdma_eng_csr", ["rtl/generated/qrdma_eng_csr_pkg.sv", "rtl/generated/qrdma_eng_csr.sv"],
     area="host", no_synth=True)
_top("qrdma_nic_csr", ["rtl/generated/qrdma_nic_csr_pkg.sv", "rtl/generated/qrdma_nic_csr.sv"],
     area="top", no_synth=True)

# ---------------------------------------------------------------- host port (docs/qos.md)
_top("qrdma_status_regs", ["rtl/host/qrdma_status_regs.sv"], deps=["qrdma_fmt_pkg", "qrdma_init_sweep"],
     area="host")
_top("qrdma_host_pkg", ["rtl/host/qrdma_host_pkg.sv"], deps=["qrdma_fmt_pkg", "qrdma_qos_pkg"],
     no_synth=True, area="host")
_top("qrdma_host_wr", ["rtl/host/qrdma_host_wr.sv"], area="host",
     deps=["qrdma_fmt_pkg", "qrdma_host_pkg", "qrdma_sync_fifo", "qrdma_burst_seq"],
     synth={"DATA_W": 256, "ID_W": 4},
     lint=({"DATA_W": 128, "ID_W": 1, "NEW_FIFO_DEPTH": 4},
           {"NEW_FIFO_DEPTH": 64, "EXT_SPAN": 8192}))
_top("qrdma_host_rd", ["rtl/host/qrdma_host_rd.sv"], area="host",
     deps=["qrdma_fmt_pkg", "qrdma_host_pkg", "qrdma_sync_fifo", "qrdma_burst_seq",
           "qrdma_eng_csr"],
     synth={"DATA_W": 256, "ID_W": 4},
     lint=({"DATA_W": 128, "ID_W": 1, "EXT_PARAMS": 0x12345678},
           {"EXT_SPAN": 8192}))
_top("qrdma_host_cluster", ["rtl/host/qrdma_host_cluster.sv"], area="host",
     deps=["qrdma_sdp_ram", "qrdma_init_sweep"],
     lint=({"XW": 8, "CH_W": 6, "REC_W": 3},))
_top("qrdma_host_if", ["rtl/host/qrdma_host_if.sv"], area="host",
     deps=["qrdma_fmt_pkg", "qrdma_host_pkg", "qrdma_status_regs", "qrdma_mem_2w",
           "qrdma_host_wr", "qrdma_host_rd", "qrdma_host_cluster"],
     lint=({"DATA_W": 128, "ID_W": 1, "NEW_FIFO_DEPTH": 4},))

# ---------------------------------------------------------------- QoS engine (docs/qos.md)
_top("qrdma_qos_pkg", ["rtl/qos/qrdma_qos_pkg.sv"], no_synth=True, area="qos")
_top("qrdma_qos_ids", ["rtl/qos/qrdma_qos_ids.sv"], area="qos",
     deps=["qrdma_qos_pkg", "qrdma_id_pool", "qrdma_sync_fifo"],
     synth={"NUM_TIDS": 512}, lint=({"NUM_TIDS": 2}, {"NUM_TIDS": 100}))
_top("qrdma_qos_meta", ["rtl/qos/qrdma_qos_meta.sv"], area="qos",
     deps=["qrdma_fmt_pkg", "qrdma_qos_pkg", "qrdma_sdp_ram"], synth={})
_top("qrdma_qos_handler", ["rtl/qos/qrdma_qos_handler.sv"], area="qos",
     deps=["qrdma_fmt_pkg", "qrdma_qos_pkg", "qrdma_sdp_ram", "qrdma_mem_2w",
           "qrdma_sync_fifo"],
     synth={"MAX_OUTSTANDING": 2, "ACT_FIFO_DEPTH": 8},
     lint=({"MAX_OUTSTANDING": 4, "ACT_FIFO_DEPTH": 4},
           {"MAX_OUTSTANDING": 1, "ACT_FIFO_DEPTH": 64}))
_top("qrdma_qos_seg", ["rtl/qos/qrdma_qos_seg.sv"], area="qos",
     deps=["qrdma_fmt_pkg", "qrdma_qos_pkg", "qrdma_multi_queue_pipe", "qrdma_arb_fixed",
           "qrdma_sync_fifo"],
     synth={"BLOCK_SIZE": 65536, "MAX_OUTSTANDING": 2},
     lint=({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 4, "OUT_FIFO_DEPTH": 9},
           {"MAX_OUTSTANDING": 1, "CM_MIN_BYTES": 64, "MP_MIN_BYTES": 64}))
_top("qrdma_qos_core", ["rtl/qos/qrdma_qos_core.sv"], area="qos",
     deps=["qrdma_qos_ids", "qrdma_qos_meta", "qrdma_qos_handler", "qrdma_qos_seg"],
     lint=({"BLOCK_SIZE": 8192, "MAX_OUTSTANDING": 4, "NUM_TIDS": 16},))
_top("qrdma_qos_engine", ["rtl/qos/qrdma_qos_engine.sv"], area="qos",
     deps=["qrdma_host_pkg", "qrdma_host_if", "qrdma_qos_core"],
     lint=({"HOST_DATA_W": 128}, {"BENCH_STAMPS": 1}))

_top("qrdma_nic_regs", ["rtl/top/qrdma_nic_regs.sv"], area="top",
     deps=["qrdma_fmt_pkg", "qrdma_nic_csr"])

# ---------------------------------------------------------------- NIC (docs/nic.md)
_top("qrdma_tx_pkg", ["rtl/tx/qrdma_tx_pkg.sv"], deps=["qrdma_fmt_pkg"], no_synth=True,
     area="tx")
# (the unit tops below take the parameters the NIC gives them with its defaults)
_top("qrdma_tx_sched", ["rtl/tx/qrdma_tx_sched.sv"], area="tx",
     deps=["qrdma_fmt_pkg", "qrdma_tx_pkg", "qrdma_id_pool", "qrdma_multi_queue_pipe",
           "qrdma_arb_rr", "qrdma_sdp_ram"],
     synth={"NUM_NODES": 4, "MAX_PAYLOAD": 1024, "SLOTS": 64},
     lint=({"NUM_NODES": 3, "MAX_PAYLOAD": 4096, "SLOTS": 8},
           {"NUM_NODES": 1, "MAX_PAYLOAD": 256, "SLOTS": 2}))
_top("qrdma_tx_rd", ["rtl/tx/qrdma_tx_rd.sv"], area="tx", deps=["qrdma_tx_pkg"],
     synth={"AXI_ID_W": 4}, lint=({"AXI_ID_W": 1},))
_top("qrdma_tx_realign", ["rtl/tx/qrdma_tx_realign.sv"], area="tx", deps=["qrdma_tx_pkg"],
     synth={})
_top("qrdma_tx_rsp", ["rtl/tx/qrdma_tx_rsp.sv"], area="tx",
     deps=["qrdma_fmt_pkg", "qrdma_tx_pkg"], synth={})
_top("qrdma_tx_rel", ["rtl/tx/qrdma_tx_rel.sv"], area="tx",
     deps=["qrdma_fmt_pkg", "qrdma_reg_slice", "qrdma_sdp_ram", "qrdma_mem_2w",
           "qrdma_sync_fifo"],
     synth={}, lint=({"TICK_SHIFT": 4, "DEADLINE_W": 8},))
_top("qrdma_tx_asm", ["rtl/tx/qrdma_tx_asm.sv"], area="tx",
     deps=["qrdma_bench_pkg", "qrdma_fmt_pkg", "qrdma_tx_pkg", "qrdma_sync_fifo", "qrdma_crc32_512"],
     synth={"OUT_DEPTH": 16}, lint=({"OUT_DEPTH": 8},))
_top("qrdma_tx", ["rtl/tx/qrdma_tx.sv"],
     area="tx",
     deps=["qrdma_fmt_pkg", "qrdma_tx_pkg", "qrdma_tx_sched", "qrdma_tx_rd",
           "qrdma_tx_realign", "qrdma_tx_rsp", "qrdma_tx_asm",
           "qrdma_sync_fifo", "qrdma_sdp_ram"],
     lint=({"NUM_NODES": 3, "MAX_PAYLOAD": 4096, "SLOTS": 8, "READ_WINDOW_BEATS": 128},
           {"NUM_NODES": 1, "MAX_PAYLOAD": 256, "SLOTS": 2, "READ_WINDOW_BEATS": 4,
            "AXI_ID_W": 1}))
_top("qrdma_rx_pkg", ["rtl/rx/qrdma_rx_pkg.sv"], no_synth=True, area="rx")
_top("qrdma_rx_cpl", ["rtl/rx/qrdma_rx_cpl.sv"], area="rx",
     deps=["qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_sync_fifo", "qrdma_sdp_ram"],
     synth={"NENT": 4096}, lint=({"NENT": 16},))
_top("qrdma_rx_notif", ["rtl/rx/qrdma_rx_notif.sv"], area="rx",
     deps=["qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_sdp_ram"],
     synth={"NENT": 4096}, lint=({"NENT": 16}, {"NENT": 16, "BENCH_STAMPS": 1}))
_top("qrdma_rx_track", ["rtl/rx/qrdma_rx_track.sv"], area="rx",
     deps=["qrdma_rx_pkg", "qrdma_sdp_ram", "qrdma_init_sweep"],
     synth={"NENT": 4096, "MAX_BLK_PKTS": 64, "PAY_W": 8},
     lint=({"NENT": 16, "MAX_BLK_PKTS": 1}, {"NENT": 2048, "MAX_BLK_PKTS": 256}))
# (the unit tops below take the parameters the NIC gives them with its defaults)
_top("qrdma_rx_buf", ["rtl/rx/qrdma_rx_buf.sv"], area="rx",
     deps=["qrdma_bench_pkg", "qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_tx_pkg", "qrdma_sync_fifo", "qrdma_sdp_ram", "qrdma_crc32_512",
           "qrdma_reg_slice"],
     synth={"MAX_PAYLOAD": 1024, "BUF_BEATS": 256, "HDR_DEPTH": 64},
     lint=({"MAX_PAYLOAD": 256, "BUF_BEATS": 8, "HDR_DEPTH": 64},))
_top("qrdma_rx_hdr", ["rtl/rx/qrdma_rx_hdr.sv"], area="rx",
     deps=["qrdma_bench_pkg", "qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_rx_track", "qrdma_sync_fifo"],
     synth={"NUM_NODES": 4, "MAX_PAYLOAD": 1024, "MAX_BLK_PKTS": 64, "EVT_DEPTH": 64},
     lint=({"NUM_NODES": 1, "MAX_PAYLOAD": 256, "MAX_BLK_PKTS": 1},))
_top("qrdma_rx_wr", ["rtl/rx/qrdma_rx_wr.sv"], area="rx",
     deps=["qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_sync_fifo"],
     synth={"AXI_ID_W": 4, "KQ_DEPTH": 32},
     lint=({"AXI_ID_W": 1},))
_top("qrdma_rx_prot", ["rtl/rx/qrdma_rx_prot.sv"], area="rx",
     deps=["qrdma_fmt_pkg", "qrdma_sdp_ram", "qrdma_init_sweep"],
     synth={"WINDOWS": 64},
     lint=({"WINDOWS": 2}, {"WINDOWS": 1024}))
_top("qrdma_rx_reg", ["rtl/rx/qrdma_rx_reg.sv"], area="rx",
     deps=["qrdma_sdp_ram", "qrdma_sync_fifo", "qrdma_init_sweep"],
     synth={"ENTRIES": 256, "MASK_W": 256},
     lint=({"ENTRIES": 2, "MASK_W": 2, "ESC_DEPTH": 1},
           {"ENTRIES": 1024, "MASK_W": 1024, "ESC_DEPTH": 32}))
_top("qrdma_rx_early", ["rtl/rx/qrdma_rx_early.sv"], area="rx",
     deps=["qrdma_rx_pkg", "qrdma_rx_reg", "qrdma_sync_fifo"],
     synth={"ENTRIES": 256, "MASK_W": 256},
     lint=({"ENTRIES": 2, "MASK_W": 4, "ESC_DEPTH": 1, "Q_DEPTH": 2},))
_top("qrdma_rx", ["rtl/rx/qrdma_rx.sv"],
     area="rx",
     deps=["qrdma_fmt_pkg", "qrdma_rx_pkg", "qrdma_tx_pkg", "qrdma_rx_buf", "qrdma_rx_hdr", "qrdma_rx_wr",
           "qrdma_rx_track", "qrdma_rx_cpl", "qrdma_rx_notif", "qrdma_rx_prot", "qrdma_rx_early",
           "qrdma_sync_fifo", "qrdma_sdp_ram", "qrdma_crc32_512", "qrdma_reg_slice"],
     lint=({"NUM_NODES": 1, "MAX_PAYLOAD": 256, "MAX_BLK_PKTS": 1, "BUF_BEATS": 8, "AXI_ID_W": 1},
           {"NUM_NODES": 8, "MAX_PAYLOAD": 4096, "MAX_BLK_PKTS": 256, "BUF_BEATS": 128},
           {"BENCH_STAMPS": 1}))

# The NIC in a configuration that fits the LFE5U-85F (208 block RAMs): two nodes, which
# halves the receive unit's per-source tables (docs/synth.md "Whole NIC").
NIC_ECP5 = {"NUM_NODES": 2}
_top("qrdma_nic", ["rtl/top/qrdma_nic.sv"], area="top",
     deps=["qrdma_stamp", "qrdma_qos_engine", "qrdma_tx", "qrdma_tx_rel", "qrdma_rx", "qrdma_nic_regs", "qrdma_arb_rr"],
     lint=({"HOST_DATA_W": 128, "NUM_NODES": 2, "MAX_PAYLOAD": 256, "BLOCK_SIZE": 8192,
            "TX_SLOTS": 8, "READ_WINDOW_BEATS": 16, "RX_BUF_BEATS": 16}, NIC_ECP5))

# ---------------------------------------------------------------- fabric
_top("qrdma_credit_tx", ["rtl/fabric/qrdma_credit_tx.sv"], area="fabric", synth={},
     lint=({"CNT_W": 8, "MAX_PKT": 1},))
_top("qrdma_credit_rx", ["rtl/fabric/qrdma_credit_rx.sv"], area="fabric", synth={},
     lint=({"CNT_W": 8, "MAX_PKT": 1, "UPD_MIN": 4, "REFRESH": 2},))

_top("qrdma_credit_beat", ["rtl/fabric/qrdma_credit_beat.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fmt_pkg"], lint=({"N": 1},))
_top("qrdma_switch_xp", ["rtl/fabric/qrdma_switch_xp.sv"], area="fabric", no_synth=True,
     deps=["qrdma_sdp_ram", "qrdma_sync_fifo", "qrdma_credit_rx"],
     lint=({"WIDTH": 8, "DEPTH": 2, "MAX_PKT": 2},
           {"WIDTH": 8, "DEPTH": 2, "MAX_PKT": 2, "TAG_W": 3}))
_top("qrdma_credit_parse", ["rtl/fabric/qrdma_credit_parse.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fmt_pkg"], lint=({"N": 1},))
_top("qrdma_switch_in", ["rtl/fabric/qrdma_switch_in.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fmt_pkg", "qrdma_credit_parse"], lint=({"P": 3, "ROUTES": 5, "MAX_PKT": 1},))
_top("qrdma_switch_out", ["rtl/fabric/qrdma_switch_out.sv"], area="fabric", no_synth=True,
     deps=["qrdma_arb_rr", "qrdma_sync_fifo", "qrdma_credit_tx", "qrdma_credit_beat"],
     lint=({"P": 3, "MAX_PKT": 1}, {"P": 3, "MAX_PKT": 1, "CLASSES": 3},
           {"P": 1, "MAX_PKT": 1, "CLASSES": 3}))
_top("qrdma_switch", ["rtl/fabric/qrdma_switch.sv"], area="fabric",
     deps=["qrdma_switch_xp", "qrdma_switch_in", "qrdma_switch_out", "qrdma_credit_beat",
           "qrdma_stamp"],
     synth={"P": 8}, lint=({"P": 3, "ROUTES": 5, "XP_DEPTH": 32},))
_top("qrdma_fabric_port", ["rtl/fabric/qrdma_fabric_port.sv"], area="fabric",
     deps=["qrdma_switch_in", "qrdma_switch_xp", "qrdma_switch_out", "qrdma_credit_parse",
           "qrdma_credit_beat", "qrdma_sync_fifo", "qrdma_credit_rx"],
     synth={}, lint=({"CLASSES": 3, "NUM_NODES": 2, "ROUTES": 5, "VOQ_DEPTH": 32,
                      "PAUSE_LEVEL": 8, "RX_DEPTH": 17}, {"VOQ": 0}, {"RX_WHOLE": 1},
                     {"VOQ": 0, "CLASSES": 3, "NUM_NODES": 2, "ROUTES": 5, "VOQ_DEPTH": 32,
                      "PAUSE_LEVEL": 8, "RX_DEPTH": 17}))

_top("qrdma_fabric_planes", ["rtl/fabric/qrdma_fabric_planes.sv"], area="fabric",
     deps=["qrdma_fabric_port", "qrdma_axis_demux", "qrdma_axis_arb_mux"],
     synth={}, lint=({"PLANES": 1}, {"PLANES": 4, "CLASSES": 3, "NUM_NODES": 2, "ROUTES": 5,
                                     "VOQ_DEPTH": 32, "PAUSE_LEVEL": 8, "RX_DEPTH": 17}))

# testbench tops (not hardware): two NICs back to back through link models
_top("tb_qrdma_link", ["tests/top/tb_qrdma_link.sv"], area="top", no_synth=True,
     deps=["qrdma_sync_fifo"])
_top("tb_qrdma_nic_pair", ["tests/top/tb_qrdma_nic_pair.sv"], area="top", no_synth=True,
     deps=["qrdma_nic", "tb_qrdma_link"])
# the two ends of a credit class, the update channel between them in the test
_top("tb_qrdma_credit", ["tests/fabric/tb_qrdma_credit.sv"], area="fabric", no_synth=True,
     deps=["qrdma_credit_tx", "qrdma_credit_rx"])
# the system simulation's star network (sim/): nodes' fabric ports and a switch
_top("qrdma_fabric_star", ["sim/qrdma_fabric_star.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fabric_planes", "qrdma_switch"], lint=({"PLANES": 2},))
# the system simulation's two-switch network (sim/): nodes' fabric ports and two switches
_top("qrdma_fabric_dumbbell", ["sim/qrdma_fabric_dumbbell.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fabric_planes", "qrdma_switch"], lint=({"P": 2},))
# nodes' fabric ports around a switch, links of a few cycles between them
_top("tb_qrdma_fabric", ["tests/fabric/tb_qrdma_fabric.sv"], area="fabric", no_synth=True,
     deps=["qrdma_fabric_star"])
_top("tb_qrdma_fabric_2hop", ["tests/fabric/tb_qrdma_fabric_2hop.sv"], area="fabric",
     no_synth=True, deps=["qrdma_fabric_port", "qrdma_switch"])

# ------------------------------------------- further synthesis configurations
# A top synthesized with another parameter set besides its `synth` one, as a row of its
# own in the synthesis report (syn/synth.py): name -> (top, parameters).
SYNTH_CONFIGS: dict[str, tuple[str, dict]] = {
    "qrdma_nic.ecp5": ("qrdma_nic", NIC_ECP5),
    # 8 x 8 crosspoints of 609-bit beats exceed the LFE5U-85F (208 block RAMs, 10,455 LUTs
    # that can hold RAM); at 3 ports (153 of the 208 block RAMs) nextpnr-ecp5 does not
    # route the crosspoints' buses: the ECP5 figure is of 2 ports (docs/fabric.md "Switch")
    "qrdma_switch.ecp5": ("qrdma_switch", {"P": 2}),
}

# --------------------------------------------------------------------- helpers
def sources(name: str) -> list[Path]:
    """All files of top `name` (absolute paths), packages first, each once."""
    seen: list[str] = []

    def visit(n: str) -> None:
        t = TOPS[n]
        for d in t.deps:
            visit(d)
        for f in t.files:
            if f not in seen:
                seen.append(f)

    visit(name)
    pkgs = [f for f in seen if f.endswith("_pkg.sv")]
    rest = [f for f in seen if not f.endswith("_pkg.sv")]
    return [ROOT / f for f in pkgs + rest]


def verilator_sources(name: str) -> list[Path]:
    """sources() for Verilator: with the waiver file of the generated blocks first when
    the top uses one of them."""
    src = sources(name)
    if any(str(p.relative_to(ROOT)).startswith(GENERATED_DIR) for p in src):
        return [ROOT / VERILATOR_CONFIG] + src
    return src


def relative_sources(name: str) -> list[str]:
    """Same as sources(), relative to the repository root (yowasp tools see only those)."""
    return [str(p.relative_to(ROOT)) for p in sources(name)]


def synth_tops() -> list[str]:
    """The rows of the synthesis report: every top with a `synth` set, then the further
    configurations (SYNTH_CONFIGS)."""
    return [n for n, t in TOPS.items() if t.synth is not None] + list(SYNTH_CONFIGS)


def synth_target(name: str) -> tuple[str, dict]:
    """(module, parameters) of a row of the synthesis report."""
    if name in SYNTH_CONFIGS:
        return SYNTH_CONFIGS[name]
    return name, dict(TOPS[name].synth or {})


def rtl_tops() -> list[str]:
    """Every top that is a module (not a package-only entry)."""
    return [n for n, t in TOPS.items() if not n.endswith("_pkg")]


if __name__ == "__main__":
    for n in TOPS:
        print(n, " ".join(relative_sources(n)))
