"""tessera from Python, end to end, on real text: WordNet's glosses embedded with WordLlama.

    make quickstart        # installs examples/python/requirements.txt into .venv, then runs this

1. Reads the 117,659 glosses of WordNet 3.0 (Debian package wordnet-base, /usr/share/wordnet).
2. Embeds them with WordLlama (256 dimensions), whose weights ship inside its PyPI package:
   nothing is downloaded.
3. Creates a dataset, builds an IVF_PQ index with tessera and a BM25 index on the text.
4. Searches: semantic, full-text, hybrid; then measures recall@10 against the exact answer and
   the latency of batches of queries for several nprobes, with IVF_PQ (with and without
   re-ranking) and IVF_FLAT on the same partitions, and plots recall against latency
   (docs/python-quickstart.png).
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import tempfile
import time

import numpy as np
import pyarrow as pa

import tessera
from wordnet_glosses import embedder, read_glosses


def recall(found: pa.Table, exact: pa.Table, k: int) -> float:
    hits = 0
    queries = exact["query"].to_numpy()
    for q in np.unique(queries):
        want = set(exact.filter(pa.compute.equal(exact["query"], q))["_rowaddr"].to_pylist())
        got = set(found.filter(pa.compute.equal(found["query"], q))["_rowaddr"].to_pylist())
        hits += len(want & got)
    return hits / (len(np.unique(queries)) * k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[2] / "docs" / "python-quickstart.png"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    words, glosses = read_glosses()
    model = embedder()
    started = time.perf_counter()
    vectors = model.embed(glosses, norm=True).astype(np.float32)
    print(f"embedded {len(glosses):,} glosses into {vectors.shape[1]} dimensions "
          f"in {time.perf_counter() - started:.1f} s")

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="tessera-quickstart-"))
    try:
        ds = tessera.create(workdir / "glosses", {
            "words": pa.array(words),
            "gloss": pa.array(glosses),
            "vector": tessera.vectors(vectors),   # shares the array's memory
        })
        started = time.perf_counter()
        ds.create_index("vector", "IVF_PQ", num_partitions=256, num_sub_vectors=32, metric="cosine")
        print(f"IVF_PQ built in {time.perf_counter() - started:.1f} s")
        ds.create_index("gloss", "INVERTED")
        print(ds.list_indexes())

        question = "a small boat used on rivers"
        query = model.embed([question], norm=True).astype(np.float32)[0]
        print("semantic:", ds.search(query, k=5, nprobes=16, refine_factor=4, columns=["words"])["words"].to_pylist())
        print("full-text:", ds.text_search(question, k=5, columns=["words"])["words"].to_pylist())
        print("hybrid:", ds.hybrid_search(question, query, k=5, columns=["words"])["words"].to_pylist())

        rng = np.random.default_rng(0)
        picks = rng.choice(len(glosses), size=args.queries, replace=False)
        queries = model.embed([words[i] for i in picks], norm=True).astype(np.float32)
        k = 10
        exact = ds.search(queries, k=k, use_index=False, columns=[], with_row_address=True)

        def measure(label, refine):
            for nprobes in (1, 2, 4, 8, 16, 32, 64):
                times = []
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    found = ds.search(queries, k=k, nprobes=nprobes, refine_factor=refine,
                                      columns=[], with_row_address=True)
                    times.append(time.perf_counter() - started)
                latency_ms = 1000 * float(np.median(times)) / args.queries
                points.append((label, nprobes, recall(found, exact, k), latency_ms))
                print(f"{label} nprobes={nprobes:3d}: recall@10 {points[-1][2]:.3f}, "
                      f"{latency_ms:.3f} ms per query (median of {args.repeats} batches)")

        points = []
        measure("IVF_PQ, refine_factor=1", 1)
        measure("IVF_PQ, refine_factor=4", 4)
        # The same partitions' recall without quantization: IVF_FLAT scores raw vectors.
        ds.drop_index("vector_idx")
        ds.create_index("vector", "IVF_FLAT", num_partitions=256, metric="cosine")
        measure("IVF_FLAT", 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for label, marker in (("IVF_PQ, refine_factor=1", "o"), ("IVF_PQ, refine_factor=4", "s"),
                          ("IVF_FLAT", "^")):
        series = [(latency, r, n) for name, n, r, latency in points if name == label]
        axes.plot([s[0] for s in series], [s[1] for s in series], marker=marker, label=label)
        for latency, r, n in series:
            axes.annotate(str(n), (latency, r), textcoords="offset points", xytext=(4, -10),
                          fontsize=7)
    axes.set_xlabel("ms per query (batch of %d, median of %d)" % (args.queries, args.repeats))
    axes.set_ylabel("recall@10")
    axes.set_title("117,659 WordNet glosses, WordLlama 256-d, cosine\n(labels: nprobes)",
                   fontsize=10)
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=120)
    print(f"plot written to {args.out}")


if __name__ == "__main__":
    main()
