#!/usr/bin/env python3
"""Writes seed inputs for the MQ fuzz targets into corpus/<target>/.

Run from codecs/fuzz: `python3 make_seeds.py`. The first byte of every input
selects the chain options (fuzz_targets/common.rs); 0 = detect. Seeds: MQMD +
MQXQH + MQMDE + MQRFH2 and MQMD + MQDLH + MQRFH + MQCIH + MQIIH chains in
both byte orders, an XQH with a NUL-padded Format and a UTF-16 folder, and
the pymqi RFH2 fixtures when ../../../shared is present (never copied into
the repository: corpus/ is ignored by git).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, '..', '..', '..', 'shared', 'fixtures', 'mq', 'pymqi')
def i(v, le): return struct.pack('<i' if le else '>i', v)
def pad(s, n): return s.ljust(n, b' ')
def md(le, fmt, enc=546, ccsid=1208, version=2):
    b = b'MD  ' + i(version, le) + i(0, le) + i(8, le) + i(-1, le) + i(0, le) + i(enc, le) + i(ccsid, le) + pad(fmt, 8)
    b += i(-1, le) + i(2, le) + bytes(24) + bytes(24) + i(0, le) + pad(b'', 48) + pad(b'', 48) + pad(b'user', 12) + bytes(32) + pad(b'', 32)
    b += i(6, le) + pad(b'app', 28) + b'20201231' + b'01020344' + b'    '
    if version == 2:
        b += bytes(24) + i(1, le) + i(0, le) + i(0, le) + i(-1, le)
    return b
def xqh(le, fmt):
    return b'XQH ' + i(1, le) + pad(b'Q.IN', 48) + pad(b'QM2', 48) + md(le, fmt, version=1)
def mde(le, fmt):
    return b'MDE ' + i(2, le) + i(72, le) + i(546, le) + i(1208, le) + pad(fmt, 8) + i(0, le) + bytes(24) + i(1, le) + i(0, le) + i(0, le) + i(-1, le)
def rfh2(le, fmt, folders, nvccsid=1208):
    data = b''
    for f in folders:
        f = f + b' ' * ((-len(f)) % 4)
        data += i(len(f), le) + f
    return b'RFH ' + i(2, le) + i(36 + len(data), le) + i(546 if le else 273, le) + i(1208, le) + pad(fmt, 8) + i(0, le) + i(nvccsid, le) + data
def rfh1(le, fmt, s):
    s = s + b' ' * ((-len(s)) % 4)
    return b'RFH ' + i(1, le) + i(32 + len(s), le) + i(546, le) + i(819, le) + pad(fmt, 8) + i(0, le) + s
def dlh(le, fmt):
    return b'DLH ' + i(1, le) + i(2051, le) + pad(b'DLQ.TARGET', 48) + pad(b'QM1', 48) + i(546, le) + i(1208, le) + pad(fmt, 8) + i(29, le) + pad(b'mqgate', 28) + b'2020123101020344'
def cih(le, fmt):
    return b'CIH ' + i(2, le) + i(180, le) + i(546, le) + i(1208, le) + pad(fmt, 8) + i(0, le) + bytes(148)
def iih(le, fmt):
    return b'IIH ' + i(1, le) + i(84, le) + i(546, le) + i(1208, le) + pad(fmt, 8) + i(0, le) + bytes(52)
seeds = {}
for le in (True, False):
    t = 'le' if le else 'be'
    seeds['xmit_' + t] = md(le, b'MQXMIT') + xqh(le, b'MQHMDE') + mde(le, b'MQHRF2') + rfh2(le, b'MQSTR', [b'<mcd><Msd>jms_text</Msd></mcd>', b'<usr><a>1</a></usr>']) + b'hello'
    seeds['dlq_' + t] = md(le, b'MQDEAD') + dlh(le, b'MQHRF') + rfh1(le, b'MQCICS', b'name "a b" x "say ""hi"""') + cih(le, b'MQIMS') + iih(le, b'MQSTR') + b'data'
    seeds['xqh_' + t] = xqh(le, b'MQHRF2\0\0') + rfh2(le, b'MQSTR', ['<usr/>'.encode('utf-16-le') if le else '<usr/>'.encode('utf-16-be')], 1200) + b'x'
for k, v in seeds.items():
    for target in ('mq_chain_parse', 'mq_round_trip'):
        d = os.path.join(HERE, 'corpus', target)
        os.makedirs(d, exist_ok=True)
        open(d + '/seed_' + k, 'wb').write(b'\0' + v)
if os.path.isdir(SHARED):
    for target in ('mq_chain_parse', 'mq_round_trip'):
        for f in ('single_rfh2.dat', 'multiple_rfh2.dat'):
            with open(os.path.join(SHARED, f), 'rb') as src:
                data = src.read()
            with open(os.path.join(HERE, 'corpus', target, 'seed_' + f), 'wb') as dst:
                dst.write(b'\0' + data)
print('seeds written')
