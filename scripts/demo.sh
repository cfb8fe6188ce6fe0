#!/usr/bin/env bash
# A tour of the tessera CLI on synthetic data: create, append, filter, delete, time travel,
# history, compaction, scalar, vector and full-text indexes, search, and cleanup.
# Usage: scripts/demo.sh [path/to/tessera]
set -euo pipefail
tessera=${1:-build/tessera}
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$tessera" gen "$work/items.arrow" --rows 20000 --dim 32 --seed 7
step "$tessera" gen "$work/more.parquet" --rows 5000 --dim 32 --seed 8
step "$tessera" create "$work/items" --from "$work/items.arrow" --max-rows-per-file 5000
step "$tessera" append "$work/items" --from "$work/more.parquet"
step "$tessera" count "$work/items"
step "$tessera" count "$work/items" --where "category = 'books' AND price < 20"
step "$tessera" scan "$work/items" --columns id,category,price,tags,vector \
  --where "array_has_any(tags, ['sale']) AND price IS NOT NULL" --limit 5
step "$tessera" delete "$work/items" --where "category = 'toys'"
step "$tessera" versions "$work/items"
echo
echo "# time travel: version 2 still has the toys"
step "$tessera" count "$work/items" --version 2 --where "category = 'toys'"
step "$tessera" count "$work/items" --where "category = 'toys'"
step "$tessera" scan "$work/items" --version 1 --columns id,category,ts --limit 3 --format json
step "$tessera" info "$work/items"
echo
echo "# compaction: the fragments the delete thinned out are rewritten, in one commit"
step "$tessera" compact "$work/items" --target-rows-per-fragment 10000
echo
echo "# scalar indexes: a bitmap on the category, n-grams on the text, combined by the planner"
step "$tessera" index create "$work/items" --name category_bitmap --column category --type BITMAP
step "$tessera" index create "$work/items" --name text_ngrams --column text --type NGRAM
step "$tessera" count "$work/items" --where "category = 'books' AND contains(text, 'garden')" \
  --explain
echo
echo "# vector indexes: a product-quantized index, then nearest neighbours re-ranked exactly"
step "$tessera" index create "$work/items" --name vec_pq --column vector --type IVF_PQ \
  --param num_partitions=32 --param num_sub_vectors=8
step "$tessera" gen "$work/queries.arrow" --queries 3 --dim 32 --seed 7
step "$tessera" search "$work/items" --column vector --queries "$work/queries.arrow" --k 3 \
  --nprobes 4 --refine-factor 10 --columns id,category --explain
echo
echo "# full-text search: an INVERTED index, BM25 top-k with highlights, a boolean query with a"
echo "# phrase and a prefilter, and a hybrid of text and vector search fused by rank"
step "$tessera" index create "$work/items" --name text_fts --column text --type INVERTED
step "$tessera" search "$work/items" --column text --text 'garden music' --k 3 \
  --columns id,category --highlight --highlight-length 60
step "$tessera" search "$work/items" --column text --text '"garden music"~1 -winter' \
  --query-type boolean --k 3 --columns id,text --where "category = 'books'" --prefilter
query_vector=$("$tessera" scan "$work/items" --columns vector --limit 1 --format csv | tail -1 | tr -d '"')
step "$tessera" search "$work/items" --hybrid --column text --text 'garden music' \
  --vector-column vector --vector "$query_vector" --k 3 --columns id,category,text
step "$tessera" cleanup "$work/items" --older-than 0s --dry-run
echo
echo "# errors are typed and name the fix"
step "$tessera" scan "$work/items" --where "pric < 3" || true
step "$tessera" count "$work/nowhere" || true
echo
echo "# every file carries checksums: a damaged byte is reported, never read as data"
data_file="$(ls "$work/items/data/"*.arrow | head -n 1)"
cp "$data_file" "$work/pristine.arrow"
# One byte in the middle of a data file (among its vectors), as a failing disk would leave it.
middle=$(( $(stat -c %s "$data_file") / 2 ))
printf '\x7f' | dd of="$data_file" bs=1 seek="$middle" conv=notrunc status=none
printf '\n\033[1m$ %s\033[0m\n' "$tessera scan $work/items --columns id,vector --format csv > /dev/null"
"$tessera" scan "$work/items" --columns id,vector --format csv > /dev/null || true
echo "# reads that do not touch the damaged bytes still answer"
step "$tessera" count "$work/items" --where "price < 20"
cp "$work/pristine.arrow" "$data_file"
