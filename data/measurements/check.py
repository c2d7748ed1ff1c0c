#!/usr/bin/env python3
"""Validate the calibration corpus (measurements.csv + sources.csv) and print its counts.

Standard library only. Run from anywhere:

    python3 data/measurements/check.py            # checks, then counts
    python3 data/measurements/check.py --quiet    # only errors and the one-line summary

Exit status 0 when every check passes, 1 otherwise. Warnings (names the calculator's
catalogs do not know, sources without rows) never fail the run.
"""
import csv
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)

MEAS_HEADER = ['id', 'source_id', 'gpu', 'gpu_class', 'gpu_count', 'interconnect', 'model',
               'params_b', 'quant', 'engine', 'engine_version', 'metric', 'context_tokens',
               'concurrency', 'prompt_tokens', 'output_tokens', 'batch', 'ubatch', 'tp', 'flash_attention', 'value',
               'unit', 'notes']
SRC_HEADER = ['source_id', 'url', 'title', 'date', 'kind', 'what_it_measures', 'notes']

# metric -> the unit its value must be in
METRICS = {
    'decode_tok_s_per_stream': 'tok/s',  # tokens/s one request sees while decoding
    'decode_tok_s_total': 'tok/s',       # output tokens/s summed over all concurrent requests
    'prefill_tok_s': 'tok/s',            # prompt tokens processed per second
    'ttft_ms': 'ms',                     # time to first token
    'tpot_ms': 'ms',                     # time per output token (inter-token latency)
}
GPU_CLASSES = {'geforce', 'workstation', 'datacenter', 'apple', 'other'}
# numeric columns: (may be zero?)
NUMERIC = {'gpu_count': False, 'params_b': False, 'context_tokens': True, 'concurrency': False,
           'prompt_tokens': False, 'output_tokens': False, 'batch': False, 'ubatch': False,
           'tp': False}
DATE_RE = re.compile(r'^\d{4}(-\d{2}(-\d{2})?)?$')
# Sources kept aside for independent validation (issue 13): no row may come from them.
KEPT_ASIDE = [
    (re.compile(r'llama\.cpp/discussions/15013\b'), "llama.cpp CUDA scoreboard (discussion 15013)"),
    (re.compile(r'llama\.cpp/discussions/4167\b'), "llama.cpp Apple-silicon scoreboard (discussion 4167)"),
    (re.compile(r'qwen.*speed[_-]?benchmark', re.I), "Qwen speed-benchmark documentation page"),
    (re.compile(r'397b', re.I), "seed tool's Qwen3.5-397B quantisation matrices"),
]


def load_catalog(name, key):
    """Return {lower-case id/name/alias: id} for one catalog file, or {} when it is missing."""
    path = os.path.join(DATA, name)
    try:
        with open(path, encoding='utf-8') as fh:
            items = json.load(fh)[key]
    except (OSError, ValueError, KeyError):
        return {}
    names = {}
    for item in items:
        for n in [item['id'], item.get('name', '')] + list(item.get('aliases', [])):
            if n:
                names[n.lower()] = item['id']
    return names


def as_number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_csv(path, header, errors):
    try:
        with open(path, newline='', encoding='utf-8') as fh:
            rows = list(csv.reader(fh))
    except OSError as e:
        errors.append('%s: cannot read (%s)' % (os.path.basename(path), e))
        return []
    if not rows or rows[0] != header:
        errors.append('%s: header is %s, expected %s' % (os.path.basename(path), rows[0] if rows else None, header))
        return []
    out = []
    for n, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            errors.append('%s line %d: %d fields, expected %d' % (os.path.basename(path), n, len(r), len(header)))
            continue
        out.append(dict(zip(header, r), _line=n))
    return out


def main():
    quiet = '--quiet' in sys.argv[1:]
    errors, warnings = [], []
    sources = read_csv(os.path.join(HERE, 'sources.csv'), SRC_HEADER, errors)
    rows = read_csv(os.path.join(HERE, 'measurements.csv'), MEAS_HEADER, errors)

    src_by_id = {}
    for s in sources:
        sid = s['source_id']
        where = 'sources.csv line %d' % s['_line']
        if not re.match(r'^S\d+$', sid):
            errors.append('%s: source_id %r is not of the form S<number>' % (where, sid))
        if sid in src_by_id:
            errors.append('%s: duplicate source_id %s' % (where, sid))
        src_by_id[sid] = s
        if not re.match(r'^https?://\S+$', s['url']):
            errors.append('%s: %s has no http(s) URL' % (where, sid))
        if s['date'] and not DATE_RE.match(s['date']):
            errors.append('%s: %s date %r is not YYYY, YYYY-MM or YYYY-MM-DD' % (where, sid, s['date']))
        if not s['title'] or not s['what_it_measures']:
            errors.append('%s: %s needs a title and what_it_measures' % (where, sid))
        for pattern, label in KEPT_ASIDE:
            if pattern.search(s['url']) or pattern.search(s['title']):
                errors.append('%s: %s is a kept-aside source (%s)' % (where, sid, label))

    catalogs = {
        'gpu': load_catalog('gpus.json', 'gpus'),
        'model': load_catalog('models.json', 'models'),
        'quant': load_catalog('quants.json', 'quants'),
        'engine': load_catalog('engines.json', 'engines'),
    }
    seen_ids = set()
    used_sources = Counter()
    for r in rows:
        where = 'measurements.csv line %d (%s)' % (r['_line'], r['id'])
        if r['id'] in seen_ids:
            errors.append('%s: duplicate id' % where)
        seen_ids.add(r['id'])
        sid = r['source_id']
        if not r['id'].startswith(sid + '-'):
            errors.append('%s: id does not start with its source_id %s' % (where, sid))
        if sid not in src_by_id:
            errors.append('%s: source %s is not in sources.csv' % (where, sid))
        used_sources[sid] += 1
        for col in ('gpu', 'model', 'quant', 'engine', 'engine_version', 'metric', 'unit'):
            if not r[col].strip():
                errors.append('%s: empty %s' % (where, col))
        if r['gpu_class'] not in GPU_CLASSES:
            errors.append('%s: gpu_class %r not in %s' % (where, r['gpu_class'], sorted(GPU_CLASSES)))
        if r['flash_attention'] not in ('on', 'off', ''):
            errors.append('%s: flash_attention %r is not on, off or empty' % (where, r['flash_attention']))
        if r['metric'] not in METRICS:
            errors.append('%s: metric %r not in %s' % (where, r['metric'], sorted(METRICS)))
        elif r['unit'] != METRICS[r['metric']]:
            errors.append('%s: unit %r, expected %r for %s' % (where, r['unit'], METRICS[r['metric']], r['metric']))
        v = as_number(r['value'])
        if v is None or v <= 0:
            errors.append('%s: value %r is not a positive finite number' % (where, r['value']))
        for col, zero_ok in NUMERIC.items():
            text = r[col]
            if text == '':
                continue
            n = as_number(text)
            if n is None or n < 0 or (n == 0 and not zero_ok):
                errors.append('%s: %s %r is not a %s finite number' % (where, col, text, 'non-negative' if zero_ok else 'positive'))
        if r['metric'].startswith('decode') and r['concurrency'] == '' and 'concurrency not fixed' not in r['notes']:
            warnings.append('%s: decode row without concurrency and without "concurrency not fixed" in notes' % where)
        for col, names in catalogs.items():
            if names and r[col].lower() not in names and 'not in catalog' not in r['notes'] \
                    and 'not mapped' not in r['notes'] and col != 'engine' and r[col] != 'not stated':
                warnings.append('%s: %s %r is not in the catalog and the notes do not say so' % (where, col, r[col]))

    for sid in src_by_id:
        if sid not in used_sources:
            warnings.append('sources.csv: %s has no rows' % sid)

    # ---- counts -------------------------------------------------------------------------
    def in_cat(col, value):
        return value.lower() in catalogs[col] if catalogs[col] else False

    def canon(col, value):
        return catalogs[col].get(value.lower(), value) if catalogs[col] else value

    engines = Counter(canon('engine', r['engine']) for r in rows)
    metrics = Counter(r['metric'] for r in rows)
    gpus_by_class = defaultdict(set)
    for r in rows:
        gpus_by_class[r['gpu_class']].add(canon('gpu', r['gpu']))
    decode1 = sum(1 for r in rows if r['metric'] == 'decode_tok_s_per_stream' and r['concurrency'] == '1')
    decode_many = sum(1 for r in rows if r['metric'].startswith('decode') and
                      (as_number(r['concurrency']) or 0) > 1)
    decode_unbounded = sum(1 for r in rows if r['metric'].startswith('decode') and r['concurrency'] == '')

    def longest(r):
        return max(as_number(r['context_tokens']) or 0, as_number(r['prompt_tokens']) or 0)
    long_ctx = sum(1 for r in rows if longest(r) >= 8000)
    long_ctx_16k = sum(1 for r in rows if longest(r) >= 16000)
    long_ctx_32k = sum(1 for r in rows if longest(r) >= 32000)
    sources_used = [s for s in src_by_id if s in used_sources]
    multi_gpu = sum(1 for r in rows if (as_number(r['gpu_count']) or 1) > 1)

    if not quiet:
        print('rows: %d' % len(rows))
        print('sources: %d with rows (%d listed)' % (len(sources_used), len(src_by_id)))
        print('engines: %d  %s' % (len(engines), ', '.join('%s %d' % kv for kv in engines.most_common())))
        all_gpus = set().union(*gpus_by_class.values()) if gpus_by_class else set()
        print('GPUs: %d distinct' % len(all_gpus))
        for cls in sorted(gpus_by_class):
            names = sorted(gpus_by_class[cls])
            print('  %-11s %2d  %s' % (cls, len(names), ', '.join(names)))
        print('metrics: %s' % ', '.join('%s %d' % kv for kv in sorted(metrics.items())))
        print('decode at 1 stream (per-stream, concurrency 1): %d rows' % decode1)
        print('decode at >1 concurrent streams: %d rows (+%d at unbounded/offline load)' % (decode_many, decode_unbounded))
        print('long context (prompt or context >= 8,000 tokens): %d rows; >= 16,000: %d; >= 32,000: %d'
              % (long_ctx, long_ctx_16k, long_ctx_32k))
        print('multi-GPU rows: %d' % multi_gpu)
        for col in ('gpu', 'model', 'quant', 'engine'):
            known = sum(1 for r in rows if in_cat(col, r[col]))
            print('catalog names: %-6s %d of %d rows' % (col, known, len(rows)))
        for w in warnings:
            print('warning: ' + w)
    for e in errors:
        print('error: ' + e)
    print('%s: %d rows, %d sources, %d engines, %d GPUs, %d errors, %d warnings' % (
        'OK' if not errors else 'FAILED', len(rows), len(sources_used), len(engines),
        len(set().union(*gpus_by_class.values())) if gpus_by_class else 0, len(errors), len(warnings)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
