"""Capacity planning from measured stage costs (`benchmarks/stage_costs.py`'s profile) and prices.

The profile gives CPU seconds per source second for each stage, measured on real footage in one
process, and bytes per clip. Scaled to a target clip count, those are core-seconds that the CPU
workers share (decode, cuts, quality, embedding, encoding scale linearly with cores: every
source and clip is independent); selection runs on one node at the rate
`benchmarks/select_scale.py` measured. Stages run one after another, the cluster pays a ramp-up
(node start and image pull) once, and object storage bills requests and transfer. Workers are
priced at spot, the head at on-demand. The candidate cap bounds how many clips a run can keep at
all, so a cap below the target is reported rather than planned around. The goal is checked on
the result, and the floor (the CPU work alone at spot, on any number of nodes) says whether more
nodes could ever meet the cost half of it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

PRICES_AS_OF = "2026-12"


@dataclass(frozen=True)
class Prices:
    """USD prices (us-east-1 list prices, as of PRICES_AS_OF); every one can be passed in."""

    cpu_on_demand: float = 1.36  # c6i.8xlarge, 32 vCPU
    cpu_spot: float = 0.55
    gpu_on_demand: float = 1.624  # g5.4xlarge, 1 A10G
    gpu_spot: float = 0.65
    head_on_demand: float = 0.384  # m6i.2xlarge, always on-demand
    s3_put_per_1000: float = 0.005
    s3_get_per_1000: float = 0.0004
    egress_per_gb: float = 0.0  # bucket and nodes in one region; 0.02 across regions, 0.09 to the internet


@dataclass(frozen=True)
class Storage:
    """How the job talks to object storage."""

    read_block_bytes: int = 8 << 20  # one ranged GET per block of a buffered read
    part_bytes: int = 8 << 20  # multipart upload part size


@dataclass(frozen=True)
class Goal:
    wall_hours: float = 4.0
    spot_usd: float = 200.0


# CPU stages of curation on the workers, per source second; the embedding stage is chosen below
FRONT_END = ("probe", "analyse_total")


def load_profile(path: str) -> dict:
    """The profile, checked for what planning needs (a bad profile fails here, by name)."""
    with open(path) as f:
        profile = json.load(f)
    missing = [k for k in ("stages", "bytes", "window_s") if k not in profile]
    stages = profile.get("stages", {})
    missing += [s for s in (*FRONT_END, "standardize_encode") if "cpu_s_per_source_s" not in stages.get(s, {})]
    corpus = profile.get("corpus", {})
    if not corpus.get("windows") or not corpus.get("selection", {}).get("kept"):
        missing.append("corpus windows and kept count")
    if missing:
        raise ValueError(f"{path}: not a stage_costs profile (missing {', '.join(missing)})")
    return profile


def measured_windows_per_clip(profile: dict) -> tuple[float, str]:
    """Windows analysed for each clip kept, as selection decided on the profile's corpus, and
    where that figure comes from."""
    corpus = profile["corpus"]
    kept = corpus["selection"]["kept"]
    return corpus["windows"] / kept, f"the profile's corpus: {corpus['windows']} windows, {kept} kept"


def s3_requests(clips: int, windows_per_clip: float, profile: dict, storage: Storage) -> dict:
    """GET and PUT counts and bytes of one run: sources are read twice (analysis, then encoding
    of the kept windows), clips are uploaded once, the work shards once per segment."""
    b, window_s = profile["bytes"], profile["window_s"]
    source_bytes = clips * windows_per_clip * window_s * b["source_per_source_s"]
    encode_read = clips * window_s * b["source_per_source_s"]  # each kept clip re-reads its window
    clip_bytes = clips * b["clip_out_per_clip"]
    gets = math.ceil((source_bytes + encode_read) / storage.read_block_bytes) + clips  # + one open per clip
    parts = max(1, math.ceil(b["clip_out_per_clip"] / storage.part_bytes))
    puts = clips * (parts + (2 if parts > 1 else 0))  # multipart: create + parts + complete
    return {
        "get": gets,
        "put": puts,
        "bytes_read": round(source_bytes + encode_read),
        "bytes_written": round(clip_bytes),
        "get_per_clip": round(gets / clips, 2),
        "put_per_clip": round(puts / clips, 2),
    }


def plan_from_profile(
    profile: dict,
    clips: int,
    cpu_nodes: int,
    cpu_vcpus: int = 32,
    prices: Prices = Prices(),
    storage: Storage = Storage(),
    goal: Goal = Goal(),
    windows_per_clip: float | None = None,
    max_candidates: int = 100_000,
    select_s_per_million: float = 1881.0,
    ramp_up_s: float = 300.0,
    gpu_nodes: int = 0,
    gpu_windows_per_s: float | None = None,
) -> dict:
    """Hours, dollars, bottleneck and the goal's verdict for `clips` kept clips; windows per clip
    from the profile's corpus unless given."""
    if windows_per_clip is None:
        windows_per_clip, per_clip_from = measured_windows_per_clip(profile)
    else:
        per_clip_from = "given"
    stages = profile["stages"]
    window_s = profile["window_s"]
    windows = clips * windows_per_clip
    video_s = windows * window_s
    cores = cpu_nodes * cpu_vcpus
    gpu_rate = gpu_nodes * gpu_windows_per_s if gpu_nodes and gpu_windows_per_s else 0.0
    embed = "clip_embed_gpu" if gpu_rate else "clip_embed_cpu"
    core_s = {name: stages[name]["cpu_s_per_source_s"] * video_s for name in FRONT_END}
    if not gpu_rate:
        core_s[embed] = stages[embed]["cpu_s_per_source_s"] * video_s
    core_s["standardize_encode"] = stages["standardize_encode"]["cpu_s_per_source_s"] * clips * window_s
    wall = {name: s / cores for name, s in core_s.items()}
    if gpu_rate:  # CLIP streams beside decoding on GPU nodes: the slower of the two sets the pace
        wall["analyse_total"] = max(wall["analyse_total"], windows / gpu_rate)
    wall["dedup_select"] = select_s_per_million * windows / 1e6
    wall["ramp_up"] = ramp_up_s
    wall_s = sum(wall.values())
    hours = wall_s / 3600
    workers = cpu_nodes * prices.cpu_spot + (gpu_nodes * prices.gpu_spot if gpu_rate else 0.0)
    compute = hours * (workers + prices.head_on_demand)
    on_demand = hours * (
        cpu_nodes * prices.cpu_on_demand
        + (gpu_nodes * prices.gpu_on_demand if gpu_rate else 0.0)
        + prices.head_on_demand
    )
    req = s3_requests(clips, windows_per_clip, profile, storage)
    s3_usd = req["get"] / 1000 * prices.s3_get_per_1000 + req["put"] / 1000 * prices.s3_put_per_1000
    egress_usd = (req["bytes_read"] + req["bytes_written"]) / 1e9 * prices.egress_per_gb
    cost = compute + s3_usd + egress_usd
    floor = sum(core_s.values()) / cpu_vcpus / 3600 * prices.cpu_spot  # the CPU work alone, any node count
    parallel_s = sum(core_s.values())
    serial_s = wall["dedup_select"] + ramp_up_s
    room = goal.wall_hours * 3600 - serial_s
    nodes_for_wall = math.ceil(parallel_s / cpu_vcpus / room) if room > 0 else None
    bottleneck = max((k for k in wall if k != "ramp_up"), key=lambda k: wall[k])
    met = hours <= goal.wall_hours and cost <= goal.spot_usd and max_candidates >= clips
    return {
        "clips": clips,
        "windows": round(windows),
        "video_hours": round(video_s / 3600, 1),
        "cpu_nodes": cpu_nodes,
        "cpu_vcpus": cpu_vcpus,
        "gpu_nodes": gpu_nodes if gpu_rate else 0,
        "stage_hours": {k: round(v / 3600, 4) for k, v in wall.items()},
        "core_hours": {k: round(v / 3600, 1) for k, v in core_s.items()},
        "wall_hours": round(hours, 2),
        "cost_usd": {
            "compute_spot": round(compute, 2),
            "compute_on_demand": round(on_demand, 2),
            "s3_requests": round(s3_usd, 2),
            "egress": round(egress_usd, 2),
            "total_spot": round(cost, 2),
        },
        "s3": req,
        "bottleneck": bottleneck,
        "candidate_cap": {
            "max_candidates": max_candidates,
            "windows_per_clip": windows_per_clip,
            "windows_per_clip_from": per_clip_from,
            "caps_the_run": max_candidates < clips,
        },
        "goal": {
            **asdict(goal),
            "met": met,
            "wall_over_hours": round(max(0.0, hours - goal.wall_hours), 2),
            "cost_over_usd": round(max(0.0, cost - goal.spot_usd), 2),
            "cpu_floor_usd": round(floor, 2),
            "cost_reachable": floor + serial_s / 3600 * prices.head_on_demand <= goal.spot_usd,
            "cpu_nodes_for_wall": nodes_for_wall,
        },
        "prices": {**asdict(prices), "as_of": PRICES_AS_OF},
        "assumptions": (
            "CPU stages scale linearly with cores, measured single-process on "
            + profile.get("header", {}).get("machine", "an unnamed machine")
            + f"; selection {select_s_per_million:g} s per million windows on one node; ramp-up {ramp_up_s:g} s "
            f"(node start + image pull) once; {windows_per_clip:g} windows analysed per kept clip ({per_clip_from}); "
            + ("CLIP on GPU at the given rate" if gpu_rate else "CLIP on the CPU workers (GPU rates not measured)")
        ),
    }


def verdict(result: dict) -> str:
    g, c = result["goal"], result["cost_usd"]
    if g["met"]:
        return f"Goal met: {result['wall_hours']:.2f} h wall, ${c['total_spot']:,.0f} at spot."
    parts = []
    if result["candidate_cap"]["caps_the_run"]:
        parts.append(
            f"the candidate cap ({result['candidate_cap']['max_candidates']:,}) keeps fewer than "
            f"{result['clips']:,} clips: raise --max-candidates"
        )
    if g["wall_over_hours"]:
        parts.append(f"wall {result['wall_hours']:.2f} h is {g['wall_over_hours']:.2f} h over {g['wall_hours']:g} h")
    if g["cost_over_usd"]:
        parts.append(f"${c['total_spot']:,.0f} is ${g['cost_over_usd']:,.0f} over ${g['spot_usd']:,.0f}")
    floor = (
        f"The CPU work alone costs ${g['cpu_floor_usd']:,.0f} at spot on any number of nodes, so "
        + ("the cost goal is reachable" if g["cost_reachable"] else "no node count meets the cost goal")
        + (
            f"; {g['cpu_nodes_for_wall']} CPU nodes would meet the wall goal."
            if g["cpu_nodes_for_wall"]
            else "; selection and ramp-up alone exceed the wall goal."
        )
    )
    return (
        f"Goal ({g['wall_hours']:g} h wall, ${g['spot_usd']:,.0f} spot) NOT met: "
        + "; ".join(parts)
        + f". Bottleneck: {result['bottleneck']}. "
        + floor
    )


def report(result: dict) -> str:
    """The plan as Markdown: stage hours, costs, storage requests, the goal's verdict."""
    lines = ["| stage | core hours | wall hours |", "|---|---:|---:|"]
    for k, v in result["stage_hours"].items():
        mark = " (bottleneck)" if k == result["bottleneck"] else ""
        lines.append(f"| {k}{mark} | {result['core_hours'].get(k, '')} | {v:.2f} |")
    c, s, p = result["cost_usd"], result["s3"], result["prices"]
    nodes = f"{result['cpu_nodes']} x {result['cpu_vcpus']}-vCPU spot workers" + (
        f" + {result['gpu_nodes']} GPU nodes" if result["gpu_nodes"] else ""
    )
    lines += [
        f"| **wall** | | **{result['wall_hours']:.2f}** |",
        "",
        f"{result['clips']:,} clips from {result['windows']:,} windows ({result['video_hours']:,} h of video) on {nodes} "
        f"and an on-demand head: **${c['total_spot']:,.2f}** at spot (compute ${c['compute_spot']:,.2f}, "
        f"S3 requests ${c['s3_requests']:,.2f}, egress ${c['egress']:,.2f}); "
        f"${c['compute_on_demand']:,.2f} compute on demand.",
        "",
        f"Object storage: {s['get']:,} GETs ({s['get_per_clip']} per clip), {s['put']:,} PUTs ({s['put_per_clip']} per clip), "
        f"{s['bytes_read'] / 1e12:.2f} TB read, {s['bytes_written'] / 1e12:.2f} TB written.",
        "",
        f"Prices (USD, as of {p['as_of']}): CPU worker ${p['cpu_spot']}/h spot, ${p['cpu_on_demand']}/h on demand; "
        f"GPU worker ${p['gpu_spot']}/h spot, ${p['gpu_on_demand']}/h on demand; head ${p['head_on_demand']}/h; "
        f"S3 ${p['s3_get_per_1000']}/1000 GET, ${p['s3_put_per_1000']}/1000 PUT, egress ${p['egress_per_gb']}/GB.",
        "",
        f"Assumptions: {result['assumptions']}.",
        "",
        verdict(result),
    ]
    return "\n".join(lines) + "\n"
