#!/usr/bin/env bash
# Regenerates the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from real files:
# a tiny dataset built with the CLI (create, append, delete, BTREE and IVF indexes, a segment
# built by build-segment), plus hand-written filter strings and vector literals. Run it after
# an on-disk format changes, then commit the corpus:
#   bash scripts/make_fuzz_corpus.sh [path/to/tessera]      (default: build/tessera)
# Seeds of the segment targets start with the selector byte the target reads (see the target's
# header comment) followed by the file. Files named regression-* (inputs that found a bug) are
# kept.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="$(realpath "${1:-build/tessera}")"
corpus=tests/fuzz/corpus
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

ds="$work/ds"
# Up to the indexes, the same steps as the template dataset the targets build
# (tests/fuzz/support/fuzz_support.cc), so that segment files and the first data file fit it.
"$cli" gen --dataset "$ds" --rows 200 --dim 8 --clusters 4 --fragment-rows 128 >/dev/null
"$cli" delete "$ds" --where "id < 3 OR id = 150" >/dev/null
ivf=(--param num_partitions=4 --param max_iters=5)
"$cli" index create "$ds" --name price_btree --column price --type BTREE >/dev/null
"$cli" index create "$ds" --name category_btree --column category --type BTREE >/dev/null
"$cli" index create "$ds" --name vector_flat --column vector --type IVF_FLAT "${ivf[@]}" >/dev/null
"$cli" index create "$ds" --name vector_sq --column vector --type IVF_SQ "${ivf[@]}" >/dev/null
"$cli" index create "$ds" --name vector_pq --column vector --type IVF_PQ "${ivf[@]}" >/dev/null
"$cli" index create "$ds" --name vector_rq --column vector --type IVF_RQ "${ivf[@]}" >/dev/null
"$cli" index create "$ds" --name vector_hnsw --column vector --type IVF_HNSW_SQ "${ivf[@]}" \
  --param m=4 >/dev/null
"$cli" index create "$ds" --name category_bitmap --column category --type BITMAP >/dev/null
"$cli" index create "$ds" --name tags_labels --column tags --type LABEL_LIST >/dev/null
"$cli" index create "$ds" --name text_ngram --column text --type NGRAM >/dev/null
"$cli" index create "$ds" --name price_zonemap --column price --type ZONEMAP \
  --param rows_per_zone=16 >/dev/null
"$cli" index create "$ds" --name id_bloom --column id --type BLOOMFILTER \
  --param rows_per_zone=16 >/dev/null
"$cli" gen "$work/more.arrow" --rows 40 --dim 8 --clusters 4 --seed 7 >/dev/null
"$cli" append "$ds" --from "$work/more.arrow" >/dev/null
"$cli" index build-segment "$ds" --name vector_flat --column vector --type IVF_FLAT "${ivf[@]}" \
  --fragments 0 >"$work/segment.json"
"$cli" index build-segment "$ds" --name price_btree --column price --type BTREE >"$work/btree.json"

# The targets whose seeds this script writes; the others' corpora (mysql_packet, sql_statement:
# written by hand) are left alone. Inputs a fuzzer found (regression-*, kept with the fix that
# made them pass) stay.
generated=(manifest transaction deletion segment_json btree_segment ivf_segment
  scalar_family_segment fragment filter vector_literal analyzer)
for target in "${generated[@]}"; do
  mkdir -p "$corpus/$target"
  find "$corpus/$target" -type f ! -name 'regression-*' -delete
done

# Files in name order, so that seeds are numbered the same way on every run.
sorted() { find "$@" -type f | LC_ALL=C sort; }
# seed TARGET NAME [SELECTOR_BYTE_OCTAL] < FILE
seed() {
  local out="$corpus/$1/$2"
  if [ $# -ge 3 ]; then printf "\\$3" >"$out"; else : >"$out"; fi
  cat >>"$out"
}

n=0; for f in $(sorted "$ds/_versions"); do n=$((n + 1)); seed manifest "v$n" <"$f"; done
n=0; for f in $(sorted "$ds/_transactions"); do n=$((n + 1)); seed transaction "t$n" <"$f"; done
n=0; for f in $(sorted "$ds/_deletions"); do n=$((n + 1)); seed deletion "d$n" <"$f"; done
seed segment_json build_segment <"$work/segment.json"
seed segment_json btree_segment <"$work/btree.json"
printf '[%s, %s]' "$(cat "$work/segment.json")" "$(cat "$work/btree.json")" | seed segment_json array

# Every data file; the first fragment's (128 rows) is the one the target replaces, the others
# (72 and 40 rows) make smaller starting points.
n=0; for f in $(ls -S "$ds"/data/*.arrow); do n=$((n + 1)); seed fragment "f$n" <"$f"; done

# Segment directories by index name, from `index entries` (name, uuid, ... columns).
segment_dir() {
  local uuid
  uuid="$("$cli" index entries "$ds" --format csv | awk -F, -v name="$1" '$1 == name { print $3 }')"
  echo "$ds/_indices/$uuid"
}
# btree_segment selector: bit 0 index (0 price, 1 category), bits 1-2 file.
btree_files=(pages.arrow lookup.arrow nulls.arrow nans.arrow)
for i in 0 1 2 3; do
  seed btree_segment "price_${btree_files[$i]%.arrow}" "$(printf '%03o' $((i * 2)))" \
    <"$(segment_dir price_btree)/${btree_files[$i]}"
done
for i in 0 1 2; do
  seed btree_segment "category_${btree_files[$i]%.arrow}" "$(printf '%03o' $((i * 2 + 1)))" \
    <"$(segment_dir category_btree)/${btree_files[$i]}"
done
# ivf_segment selector: bits 0-1 family (0 FLAT, 1 SQ, 2 PQ, 3 RQ), bit 3 IVF_HNSW_SQ instead
# (its graphs.arrow, or model.bin with bit 2), bit 2 model.bin, bit 7 repair CRCs.
families=(vector_flat vector_sq vector_pq vector_rq)
for i in 0 1 2 3; do
  dir="$(segment_dir "${families[$i]}")"
  seed ivf_segment "${families[$i]}_partitions" "$(printf '%03o' "$i")" <"$dir/partitions.arrow"
  seed ivf_segment "${families[$i]}_model" "$(printf '%03o' $((i + 4)))" <"$dir/model.bin"
  seed ivf_segment "${families[$i]}_model_repaired" "$(printf '%03o' $((i + 4 + 128)))" <"$dir/model.bin"
done
dir="$(segment_dir vector_hnsw)"
seed ivf_segment vector_hnsw_graphs 010 <"$dir/graphs.arrow"
seed ivf_segment vector_hnsw_model 014 <"$dir/model.bin"
seed ivf_segment vector_hnsw_model_repaired 214 <"$dir/model.bin"
# scalar_family_segment selector: index (byte % 5) and file (byte / 5: its .arrow files in name
# order), as tests/fuzz/scalar_family_segment_fuzzer.cc reads it.
scalar_indexes=(category_bitmap tags_labels text_ngram price_zonemap id_bloom)
for i in 0 1 2 3 4; do
  j=0
  for f in $(sorted "$(segment_dir "${scalar_indexes[$i]}")" -name '*.arrow'); do
    seed scalar_family_segment "${scalar_indexes[$i]}_$(basename "$f" .arrow)" \
      "$(printf '%03o' $((i + 5 * j)))" <"$f"
    j=$((j + 1))
  done
done

filters=(
  "price > 10 AND category IN ('a', 'b') AND NOT (text LIKE 'tmp%' OR id = 3)"
  "ts >= TIMESTAMP '2024-01-01 00:00:00' AND array_has_any(tags, ['red', 'blue'])"
  "price IS NULL OR category IS NOT NULL"
  "id BETWEEN 10 AND 20 OR price <= -1.5e3"
  "category = 'cat_1' AND price < 50.25"
  "NOT (id % 7 = 0) AND text NOT LIKE '%a_b%'"
  "array_has_all(tags, ['x']) OR array_has(tags, 'y')"
  "ts < TIMESTAMP '2024-01-01 00:01:40' AND id IN (1, 2, 3)"
  "price * 2 - id % 3 > 10 AND CAST(price AS int) IN (id, 5) AND -id::int16 < 0"
  "CASE WHEN price > 5 THEN upper(category) ELSE concat(text, '!') END LIKE 'A%' IS NOT TRUE"
  "coalesce(price, 0) BETWEEN least(id, 3) AND greatest(id, 9) OR TRY_CAST(text AS double) IS NULL"
  "ts + INTERVAL '1' DAY > TIMESTAMP '2024-01-01 00:00:00+02:00' AND extract(hour FROM ts) = 0"
  "'red' = ANY(tags) OR array_contains(tags, 'blue') OR array_length(tags) = 0"
  "substr(category, 2, 3) || trim(text) REGEXP '^[a-z]+' AND round(price, 1) IS DISTINCT FROM nan()"
)
n=0; for f in "${filters[@]}"; do n=$((n + 1)); printf '%s' "$f" | seed filter "filter$n"; done

literals=("[0.1, 0.2, 0.3]" "0.1,0.2,0.3" "0.1 0.2 0.3" "[-1e-3,  2.5E+2 ,inf, nan]" "[ 1 ]")
n=0; for l in "${literals[@]}"; do n=$((n + 1)); printf '%s' "$l" | seed vector_literal "vector$n"; done

# analyzer selector (tests/fuzz/analyzer_fuzzer.cc): bits 0-2 tokenizer (simple, whitespace, raw,
# ngram, icu), bit 3 lower_case, bit 4 ascii_folding, bit 5 stem and stop words, bits 6-7 the
# n-gram lengths; each text under every tokenizer, with the default filters and without.
texts=(
  "The Running of the Connections: out of stock, 42 items!"
  "Café naïve Ångström Straße ÆTHER łódź ﬁle ＡＢＣ ΕΛΛΗΝΙΚΆ Привет"
  "私は東京に住んでいます 我喜欢北京 ภาษาไทย 한국어 🙂🍕 emoji"
  $'broken \x80 utf\xC3 eight \xE2\x82 \xF0\x9F\x99 \xC0\xAF \xED\xA0\x80 \xFF end'
)
n=0
for t in "${texts[@]}"; do
  n=$((n + 1))
  for selector in 000 070 001 071 002 032 103 343 004 074; do
    printf '%s' "$t" | seed analyzer "text${n}_$selector" "$selector"
  done
done

du -sh "$corpus"
