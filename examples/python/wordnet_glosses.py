"""WordNet 3.0's glosses and a WordLlama embedder: the real text of the quickstart and of the
ANN benchmark's real-embedding dataset (bench/ann), read and embedded offline.

The glosses come from the Debian package wordnet-base (/usr/share/wordnet); WordLlama's weights
ship inside its PyPI package (examples/python/requirements.txt), so nothing is downloaded.
"""

from __future__ import annotations

import pathlib
import re
import sys

WORDNET = pathlib.Path("/usr/share/wordnet")


def read_glosses(directory: pathlib.Path = WORDNET) -> tuple[list[str], list[str]]:
    """(words, glosses) of every synset, nouns, verbs, adjectives then adverbs, in file order."""
    words, glosses = [], []
    for part in ("noun", "verb", "adj", "adv"):
        path = directory / f"data.{part}"
        if not path.exists():
            sys.exit(f"{path} is missing: install the Debian package wordnet-base")
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("  "):  # the license header
                    continue
                head, _, gloss = line.partition(" | ")
                fields = head.split()
                count = int(fields[3], 16)
                names = [re.sub(r"\((a|p|ip)\)$", "", fields[4 + 2 * i]) for i in range(count)]
                words.append(" ".join(names).replace("_", " "))
                glosses.append(gloss.rstrip())
    return words, glosses


def embedder():
    """WordLlama (256 dimensions), loaded from its package directory, offline."""
    import wordllama
    from wordllama import WordLlama

    # The package directory holds weights/ and tokenizers/.
    home = pathlib.Path(wordllama.__file__).parent
    return WordLlama.load(cache_dir=home, disable_download=True)
