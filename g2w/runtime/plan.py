"""Capacity planning for a curation run at scale, from the stage timings a real run measured.

A run's `summary.json` gives, per stage, how long it took on how many CPU cores for how much
video. That becomes a unit cost (core-seconds per source second, per source, per clip; driver
seconds per window for selection), which is scaled to the target clip count on the node types
asked for. Stages run one after another, so the wall time is their sum; the bottleneck is the
longest. Assumptions, said in the output too: decode and encode scale linearly with cores
(they are independent per source and per clip); selection runs on one node and is taken as
linear in windows beyond the run's own fixed cost, at the rate `benchmarks/select_scale.py`
measured at a million windows (a small run's selection time is mostly start-up, so it cannot be
scaled by itself); the source mix (duration, how many windows survive) is the measured run's.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class NodeType:
    name: str
    vcpus: int
    gpus: int
    usd_per_hour: float

    @classmethod
    def parse(cls, text: str, gpus: int) -> NodeType:
        """`name:vcpus:usd_per_hour`, e.g. `c6i.8xlarge:32:1.36`."""
        name, vcpus, price = text.split(":")
        return cls(name, int(vcpus), gpus, float(price))


@dataclass(frozen=True)
class UnitCosts:
    """What one unit of work cost in the measured run."""

    probe_core_s_per_source: float
    analyse_core_s_per_video_s: float
    select_fixed_s: float
    standardize_core_s_per_clip: float
    windows_per_clip: float  # windows analysed for each clip kept
    video_s_per_source: float
    measured_cpus: float
    measured_device: str

    @classmethod
    def from_summary(cls, summary: dict, cpus: float | None = None) -> UnitCosts:
        t, counts, thr = summary["timings_s"], summary["counts"], summary["throughput"]
        if not thr.get("sources_analysed") or not counts.get("kept"):
            raise ValueError(
                "the summary must come from a run that analysed its sources and kept clips "
                "(a rerun that skipped everything measures nothing)"
            )
        cpus = cpus or summary.get("cluster", {}).get("CPU")
        if not cpus:
            raise ValueError("the summary does not say how many CPUs the run had: pass --measured-cpus")
        video_s = thr["source_seconds_per_s"] * t["analyse_embed"]
        sources = thr["sources_analysed"]
        return cls(
            probe_core_s_per_source=cpus * t["probe"] / summary["sources"]["total"],
            analyse_core_s_per_video_s=cpus * t["analyse_embed"] / video_s,
            select_fixed_s=t["select"],
            standardize_core_s_per_clip=cpus * t["standardize"] / counts["kept"],
            windows_per_clip=counts["windows"] / counts["kept"],
            video_s_per_source=video_s / sources,
            measured_cpus=cpus,
            measured_device=summary["embedding_model"]["device"],
        )


def plan(
    units: UnitCosts,
    clips: int,
    window_s: float,
    cpu: NodeType,
    cpu_nodes: int,
    head: NodeType,
    select_s_per_million: float,
    gpu: NodeType | None = None,
    gpu_nodes: int = 0,
    gpu_windows_per_s: float | None = None,
) -> dict:
    """Stage wall times, node counts, cost and the bottleneck for `clips` kept clips;
    `select_s_per_million` is selection's wall time per million windows at scale."""
    windows = clips * units.windows_per_clip
    video_s = windows * window_s
    sources = video_s / units.video_s_per_source
    cores = cpu_nodes * cpu.vcpus
    analyse_s = units.analyse_core_s_per_video_s * video_s / cores
    gpu_rate = gpu_nodes * gpu.gpus * gpu_windows_per_s if gpu is not None and gpu_windows_per_s else 0.0
    uses_gpu = gpu_rate > 0
    if uses_gpu:  # CLIP streams beside decoding: the slower of the two sets the pace
        analyse_s = max(analyse_s, windows / gpu_rate)
    stages = {
        "probe": units.probe_core_s_per_source * sources / cores,
        "analyse_embed": analyse_s,
        "select": units.select_fixed_s + select_s_per_million * windows / 1e6,
        "standardize": units.standardize_core_s_per_clip * clips / cores,
    }
    wall_s = sum(stages.values())
    gpu_cost = (
        gpu_nodes * gpu.usd_per_hour * analyse_s / 3600 if gpu is not None and uses_gpu else 0.0
    )  # autoscaled: up for analysis only
    cost = wall_s / 3600 * (head.usd_per_hour + cpu_nodes * cpu.usd_per_hour) + gpu_cost
    return {
        "clips": clips,
        "windows": round(windows),
        "video_hours": round(video_s / 3600, 1),
        "sources": round(sources),
        "nodes": {
            "head": {**asdict(head), "count": 1},
            "cpu": {**asdict(cpu), "count": cpu_nodes},
            "gpu": {**asdict(gpu), "count": gpu_nodes if uses_gpu else 0} if gpu else None,
        },
        "stage_hours": {k: round(v / 3600, 5) for k, v in stages.items()},
        "wall_hours": round(wall_s / 3600, 2),
        "cost_usd": round(cost, 2),
        "bottleneck": max(stages, key=lambda name: stages[name]),
        "measured_on": {"cpus": units.measured_cpus, "clip_device": units.measured_device},
        "assumptions": (
            "decode/encode scale linearly with cores; selection on one node at "
            f"{select_s_per_million:g} s per million windows; the measured run's source mix"
            + ("" if uses_gpu else "; CLIP cost as measured (on " + units.measured_device + ")")
        ),
    }


def table(result: dict) -> str:
    """The plan as a Markdown table."""
    lines = ["| stage | hours |", "|---|---:|"]
    lines += [
        f"| {k}{' (bottleneck)' if k == result['bottleneck'] else ''} | {v:.2f} |"
        for k, v in result["stage_hours"].items()
    ]
    nodes = ", ".join(f"{n['count']} x {n['name']}" for n in result["nodes"].values() if n and n["count"])
    lines += [
        f"| **wall** | **{result['wall_hours']:.2f}** |",
        "",
        f"{result['clips']:,} clips from {result['windows']:,} windows ({result['video_hours']:,} h of video, "
        f"~{result['sources']:,} sources) on {nodes}: **${result['cost_usd']:,.0f}**.",
        f"Assumptions: {result['assumptions']}.",
    ]
    return "\n".join(lines) + "\n"


def sweep(
    units: UnitCosts,
    clips: int,
    window_s: float,
    cpu: NodeType,
    head: NodeType,
    max_nodes: int,
    select_s_per_million: float,
    **gpu,
) -> list[dict]:
    """The plan at CPU node counts from 1 to max_nodes (about 12 points, log-spaced)."""
    counts = sorted({max(1, round(max_nodes ** (i / 11))) for i in range(12)})
    return [plan(units, clips, window_s, cpu, n, head, select_s_per_million, **gpu) for n in counts]


def plot(path: str, points: list[dict], chosen: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nodes = [p["nodes"]["cpu"]["count"] for p in points]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    bottom = [0.0] * len(points)
    for stage in chosen["stage_hours"]:
        hours = [p["stage_hours"][stage] for p in points]
        a.bar([str(n) for n in nodes], hours, bottom=bottom, label=stage)
        bottom = [x + y for x, y in zip(bottom, hours)]
    a.set_xlabel(f"{chosen['nodes']['cpu']['name']} nodes")
    a.set_ylabel("wall hours")
    a.set_yscale("log")
    a.legend(fontsize=8)
    a.set_title(f"{chosen['clips']:,} clips: wall time by stage")
    b.plot(nodes, [p["cost_usd"] for p in points], marker="o")
    b.axvline(chosen["nodes"]["cpu"]["count"], color="#c0392b", linestyle="--", label="this plan")
    b.set_xscale("log")
    b.set_xlabel(f"{chosen['nodes']['cpu']['name']} nodes")
    b.set_ylabel("USD")
    b.set_title("cost")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write_plan(output: str, result: dict, points: list[dict]) -> dict:
    """plan.json, plan.md and plan.png in `output`; returns their paths."""
    os.makedirs(output, exist_ok=True)
    paths = {k: os.path.join(output, f"plan.{k}") for k in ("json", "md", "png")}
    with open(paths["json"], "w") as f:
        json.dump({"plan": result, "sweep": points}, f, indent=2)
    with open(paths["md"], "w") as f:
        f.write(table(result))
    plot(paths["png"], points, result)
    return paths
