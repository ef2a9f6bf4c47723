"""What the data files of a bucketed table say of where its keys are, and Paimon's hash of an INT key,
computed here independently of the JVM."""

import struct

import pyarrow.parquet as pq

CAT = "lamina"


def buckets_of_keys(spark, warehouse, db, table, key="k"):
    """{(partition, key): {buckets}} from the live data files of `table` (their `_KEY_` columns)."""
    seen = {}
    files = spark.sql(f"SELECT partition, bucket, file_path FROM {CAT}.{db}.`{table}$files`").collect()
    for partition, bucket, path in files:
        for k in pq.ParquetFile(path).read(columns=[f"_KEY_{key}"]).column(0).to_pylist():
            seen.setdefault((partition, k), set()).add(bucket)
    return seen


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF


def key_hash(k: int) -> int:
    """Paimon's hash of an INT key: Murmur3 (seed 42) over the 4-byte words of its 16-byte binary row
    (8 bytes of header and null bits, the value in an 8-byte little-endian slot)."""
    h = 42
    for word in struct.unpack("<4I", bytes(8) + struct.pack("<iI", k, 0)):
        k1 = _rotl((word * 0xCC9E2D51) & 0xFFFFFFFF, 15) * 0x1B873593 & 0xFFFFFFFF
        h = (_rotl(h ^ k1, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    h ^= 16
    h ^= h >> 16
    h = h * 0x85EBCA6B & 0xFFFFFFFF
    h ^= h >> 13
    h = h * 0xC2B2AE35 & 0xFFFFFFFF
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h



def bucket_of(k: int, buckets: int) -> int:
    """Paimon's fixed bucket of INT key `k`: abs(hash % buckets), with Java's truncating %."""
    h = key_hash(k)
    r = abs(h) % buckets
    return r
