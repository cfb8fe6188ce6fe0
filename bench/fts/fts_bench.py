"""bench/fts: tessera's INVERTED index against tantivy and SQLite FTS5 on WordNet glosses
(docs/benchmarks.md, "Full-text search"). Run through bench/run_fts.sh.

One corpus (WordNet 3.0's 117,659 glosses from /usr/share/wordnet, Debian package wordnet-base,
optionally replicated --replicate times) feeds the three systems; one query set (generated
deterministically from the corpus's words: match of 1-3 words, 2-word phrases, boolean
+a +b -c) runs on each, single-threaded, in the same run. Reported per system: build seconds,
index bytes, per query type the median single-query latency and QPS (queries per second of one
sequential pass, median over --repetitions passes after a warm-up), and the top-10 overlap with
tessera. Tessera's build also runs with memory_limit = corpus bytes / 10 and reports its peak RSS
against that budget.
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.ipc as ipc

WORDNET = "/usr/share/wordnet"
# Words the three systems treat differently (tessera and tantivy drop stop words or not,
# FTS5 keeps them): queries avoid them, so overlaps measure ranking, not stop-word handling.
STOP = set("""a an and are as at be but by for if in into is it no not of on or such that the
their then there these they this to was will with which who from its one any some""".split())


def read_wordnet(directory):
    synsets = []
    for part in ("noun", "verb", "adj", "adv"):
        path = os.path.join(directory, "data." + part)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: install the Debian package wordnet-base")
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  "):
                    continue
                head, _, gloss = line.partition(" | ")
                fields = head.split()
                count = int(fields[3], 16)
                words = [re.sub(r"\((a|p|ip)\)$", "", fields[4 + 2 * i]) for i in range(count)]
                synsets.append((" ".join(words).replace("_", " "), gloss.rstrip()))
    return synsets


def make_queries(glosses, per_type, seed):
    rng = random.Random(seed)

    def words(text):
        return [w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) > 2]

    def content(text):
        return [w for w in words(text) if w not in STOP]

    queries = {"match": [], "phrase": [], "boolean": []}
    while min(len(v) for v in queries.values()) < per_type:
        gloss = glosses[rng.randrange(len(glosses))]
        ws = content(gloss)
        all_words = words(gloss)
        if len(queries["match"]) < per_type and ws:
            queries["match"].append(rng.sample(ws, min(len(ws), rng.randint(1, 3))))
        if len(queries["phrase"]) < per_type and len(all_words) >= 3:
            start = rng.randrange(len(all_words) - 1)
            pair = all_words[start:start + 2]
            if not (set(pair) & STOP):
                queries["phrase"].append(pair)
        if len(queries["boolean"]) < per_type and len(set(ws)) >= 2:
            must = rng.sample(sorted(set(ws)), 2)
            other = content(glosses[rng.randrange(len(glosses))])
            other = [w for w in other if w not in must]
            if other:
                queries["boolean"].append((must, rng.choice(other)))
    return queries


def tessera_text(kind, q):
    if kind == "match":
        return " ".join(q)
    if kind == "phrase":
        return " ".join(q)
    must, must_not = q
    return " ".join("+" + w for w in must) + " -" + must_not


def tantivy_text(kind, q):
    if kind == "match":
        return " ".join(q)
    if kind == "phrase":
        return '"' + " ".join(q) + '"'
    must, must_not = q
    return " ".join("+" + w for w in must) + " -" + must_not


def fts5_text(kind, q):
    quote = lambda w: '"' + w + '"'
    if kind == "match":
        return " OR ".join(quote(w) for w in q)
    if kind == "phrase":
        return '"' + " ".join(q) + '"'
    must, must_not = q
    return " AND ".join(quote(w) for w in must) + " NOT " + quote(must_not)


def directory_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def time_queries(run_one, texts, repetitions):
    """Per query the median latency over the passes; QPS the median over passes."""
    results = [run_one(t) for t in texts]  # warm-up, and the answers
    latencies = [[] for _ in texts]
    passes = []
    for _ in range(repetitions):
        start = time.perf_counter()
        for i, text in enumerate(texts):
            t0 = time.perf_counter()
            run_one(text)
            latencies[i].append(time.perf_counter() - t0)
        passes.append(time.perf_counter() - start)
    per_query = [statistics.median(l) for l in latencies]
    return {
        "latency_ms": 1000 * statistics.median(per_query),
        "p95_ms": 1000 * sorted(per_query)[int(0.95 * (len(per_query) - 1))],
        "qps": len(texts) / statistics.median(passes),
        "top10": results,
    }


def run_tantivy(work, corpus, queries, repetitions):
    import tantivy
    path = os.path.join(work, "tantivy")
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=True, indexed=False, fast=True)
    builder.add_text_field("gloss", tokenizer_name="en_stem", index_option="position")
    schema = builder.build()
    index = tantivy.Index(schema, path=path)
    start = time.perf_counter()
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    for i, (_, gloss) in enumerate(corpus):
        writer.add_document(tantivy.Document(id=i, gloss=gloss))
    writer.commit()
    writer.wait_merging_threads()
    build = time.perf_counter() - start
    index.reload()
    searcher = index.searcher()
    out = {"build_s": build, "index_bytes": directory_bytes(path), "types": {}}
    for kind, qs in queries.items():
        parsed = [index.parse_query(tantivy_text(kind, q), ["gloss"]) for q in qs]

        def one(query):
            hits = searcher.search(query, 10).hits
            return [searcher.doc(address)["id"][0] for _, address in hits]

        out["types"][kind] = time_queries(one, parsed, repetitions)
    return out


def run_fts5(work, corpus, queries, repetitions):
    path = os.path.join(work, "fts5.sqlite")
    if os.path.exists(path):
        os.remove(path)
    connection = sqlite3.connect(path)
    start = time.perf_counter()
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(gloss, tokenize='porter unicode61')")
    connection.executemany("INSERT INTO docs(rowid, gloss) VALUES (?, ?)",
                           ((i, g) for i, (_, g) in enumerate(corpus)))
    connection.commit()
    build = time.perf_counter() - start
    out = {"build_s": build, "index_bytes": os.path.getsize(path), "types": {}}
    sql = "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT 10"
    for kind, qs in queries.items():
        texts = [fts5_text(kind, q) for q in qs]
        one = lambda text: [r[0] for r in connection.execute(sql, (text,))]
        out["types"][kind] = time_queries(one, texts, repetitions)
    connection.close()
    return out


def run_tessera(args, work, corpus_file, corpus_bytes, queries, rows):
    dataset = os.path.join(work, "tessera")
    shutil.rmtree(dataset, ignore_errors=True)
    subprocess.run([args.cli, "create", dataset, "--from", corpus_file], check=True,
                   stdout=subprocess.DEVNULL)
    data_bytes = directory_bytes(dataset)

    def build(memory_limit):
        command = [args.fts_query, "build", dataset]
        if memory_limit:
            command += ["--memory-limit", str(memory_limit)]
        result = subprocess.run(command, check=True, capture_output=True, text=True)
        return json.loads(result.stdout)

    default = build(None)
    budget = max(1 << 20, corpus_bytes // 10)
    bounded = build(budget)
    bounded["budget_bytes"] = budget
    query_file = os.path.join(work, "queries.tsv")
    order = []
    with open(query_file, "w") as f:
        for kind, qs in queries.items():
            for q in qs:
                f.write(f"{kind}\t{tessera_text(kind, q)}\n")
                order.append(kind)
    result = subprocess.run([args.fts_query, "query", dataset, query_file,
                             "--repetitions", str(args.repetitions)],
                            check=True, capture_output=True, text=True)
    measured = json.loads(result.stdout)
    out = {"build_s": default["build_s"], "index_bytes": default["index_bytes"],
           "data_bytes": data_bytes, "peak_rss_bytes": default["peak_rss_bytes"],
           "accounted_peak_bytes": default["accounted_peak_bytes"],
           "spill_runs": default["spill_runs"],
           "bounded": bounded, "default_build": default, "types": {}}
    for kind in queries:
        out["types"][kind] = measured["types"][kind]
    return out


def overlap(a, b, base_rows):
    """Mean |a ∩ b| / max(|a|, |b|) per query, as sets of ids modulo the unreplicated corpus:
    the copies of a gloss are the same answer (which copy a tie returns is each system's)."""
    scores = []
    for x, y in zip(a, b):
        x = {i % base_rows for i in x}
        y = {i % base_rows for i in y}
        if not x and not y:
            continue
        scores.append(len(x & y) / max(len(x), len(y)))
    return statistics.mean(scores) if scores else 1.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--fts-query", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--replicate", type=int, default=1)
    parser.add_argument("--queries", type=int, default=200, help="per query type")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    synsets = read_wordnet(WORDNET)
    glosses = [g for _, g in synsets]
    corpus = synsets * args.replicate
    rows = len(corpus)
    corpus_bytes = sum(len(g.encode()) for _, g in corpus)
    corpus_file = os.path.join(args.work, f"corpus-x{args.replicate}.arrow")
    table = pa.table({"id": pa.array(range(rows), pa.int64()),
                      "words": [w for w, _ in corpus], "gloss": [g for _, g in corpus]})
    with ipc.new_file(corpus_file, table.schema) as writer:
        writer.write_table(table)
    queries = make_queries(glosses, args.queries, seed=17)

    systems = {}
    systems["tessera"] = run_tessera(args, args.work, corpus_file, corpus_bytes, queries, rows)
    systems["tantivy"] = run_tantivy(args.work, corpus, queries, args.repetitions)
    systems["sqlite fts5"] = run_fts5(args.work, corpus, queries, args.repetitions)

    import tantivy as tantivy_module
    versions = {"tantivy": getattr(tantivy_module, "__version__", "0.27"),
                "sqlite": sqlite3.sqlite_version}
    bounded = systems["tessera"]["bounded"]
    default_build = systems["tessera"]["default_build"]
    lines = [
        f"# Full-text search: {rows} WordNet glosses (x{args.replicate}), "
        f"{args.queries} queries per type, {args.repetitions} repetitions (medians, warm)",
        "",
        f"Corpus: {corpus_bytes / 2**20:.1f} MiB of gloss text; tessera data files "
        f"{systems['tessera']['data_bytes'] / 2**20:.1f} MiB. Peers: tantivy {versions['tantivy']} "
        f"(en_stem, 1 indexing thread), SQLite {versions['sqlite']} FTS5 (porter unicode61). "
        "Single-threaded queries, top 10.",
        "",
        "| system | build s | index MiB | type | latency ms (p95) | QPS | top-10 overlap with tessera |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, system in systems.items():
        first = True
        for kind, measured in system["types"].items():
            agreement = ("" if name == "tessera" else
                         f"{overlap(systems['tessera']['types'][kind]['top10'], measured['top10'], len(synsets)):.2f}")
            build = f"{system['build_s']:.2f}" if first else ""
            size = f"{system['index_bytes'] / 2**20:.1f}" if first else ""
            lines.append(
                f"| {name if first else ''} | {build} | {size} | {kind} | "
                f"{measured['latency_ms']:.3f} ({measured['p95_ms']:.3f}) | {measured['qps']:.0f} | "
                f"{agreement} |")
            first = False
    lines += [
        "",
        "Top-10 overlap of the peers with each other (both keep stop words): " + ", ".join(
            f"{kind} {overlap(systems['tantivy']['types'][kind]['top10'], systems['sqlite fts5']['types'][kind]['top10'], len(synsets)):.2f}"
            for kind in queries) + ".",
        "",
        "Ratios (tessera / peer, same run): " + ", ".join(
            f"{peer} build {systems['tessera']['build_s'] / systems[peer]['build_s']:.2f}×, "
            + ", ".join(f"{kind} QPS {systems['tessera']['types'][kind]['qps'] / systems[peer]['types'][kind]['qps']:.2f}×"
                        for kind in queries)
            for peer in ("tantivy", "sqlite fts5")) + ".",
        "",
        f"Bounded build: memory_limit = {bounded['budget_bytes'] / 2**20:.1f} MiB (corpus / 10), "
        f"build {bounded['build_s']:.2f} s. Peak anonymous RSS (heap and Arrow's pool, sampled "
        f"every ms) {bounded['peak_anonymous_bytes'] / 2**20:.1f} MiB, "
        f"{(bounded['peak_anonymous_bytes'] - bounded['base_anonymous_bytes']) / 2**20:.1f} MiB "
        f"above the {bounded['base_anonymous_bytes'] / 2**20:.1f} MiB before the build; peak RSS "
        f"(VmHWM, mapped data file pages included) {bounded['peak_rss_bytes'] / 2**20:.1f} MiB; "
        f"Arrow pool ({bounded['arrow_pool']}) peak {bounded['arrow_pool_peak_bytes'] / 2**20:.1f} MiB; "
        f"the writer's accounted peak {bounded['accounted_peak_bytes'] / 2**20:.1f} MiB in "
        f"{bounded['spill_runs']} spill runs. With the default limit (64 MiB): peak anonymous "
        f"{default_build['peak_anonymous_bytes'] / 2**20:.1f} MiB, peak RSS "
        f"{default_build['peak_rss_bytes'] / 2**20:.1f} MiB, accounted "
        f"{default_build['accounted_peak_bytes'] / 2**20:.1f} MiB, {default_build['spill_runs']} spill runs.",
    ]
    print("\n".join(lines))
    with open(os.path.join(args.work, "fts.json"), "w") as f:
        for system in systems.values():
            for measured in system["types"].values():
                measured.pop("top10", None)
        json.dump({"label": args.label, "rows": rows, "systems": systems}, f, indent=1)


if __name__ == "__main__":
    main()
