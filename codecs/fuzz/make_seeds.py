#!/usr/bin/env python3
"""Writes seed inputs for every fuzz target into corpus/<target>/ (docs/fuzzing.md).

Run from codecs/fuzz: `python3 make_seeds.py`. Seeds are hand-made valid
inputs and the project's own fixtures (fixtures/ at the repository root):

- mq_chain_parse, mq_round_trip, mq_destination, ccsid_message: MQMD +
  MQXQH + MQMDE + MQRFH2 and MQMD + MQDLH + MQRFH + MQCIH + MQIIH chains in
  both byte orders, an XQH with a NUL-padded Format and a UTF-16 folder,
  fixtures/mq/device_rfh2.dat, and the pymqi RFH2 fixtures when
  ../../../shared is present (read there, never copied into the repository:
  corpus/ is ignored by git). The first byte of every input selects the
  chain options (fuzz_targets/common.rs); 0 = detect. For mq_destination
  it selects the separator and prefix length instead; 0 = `%`, no prefix.
- ccsid_convert: text in UTF-8, UTF-16, EBCDIC, Shift_JIS, Big5, GB18030 and
  mixed EBCDIC behind the four selector bytes (CCSID pair, policy, cut).
- dump_reader: fixtures/dmpmqmsg/*.dmp.
- mqsc_script: fixtures/mqsc/*.mqsc.
- tux_fml32: buffers of every carried field type, an embedded buffer, a
  VIEW32 field (mqgate's encoding, docs/tuxedo.md "FML32").
- tux_tpqctl: TPQCTLs in the LP64 and ILP32 layouts, both byte orders.
- tux_dmconfig: fixtures/tuxedo/*.dmconfig; tux_fieldtbl:
  fixtures/tuxedo/*.fml.
- idl_parse: fixtures/idl/**/*.idl and fixtures/rpc/demo.idl.
- idl_payload: blank, digit and mixed payload text for each program.
- pams_sbs: zero bodies of the common lengths for every message-type
  selector, both byte orders, and the packed SBS_REG_EZ, SBS_DEREG and
  SBS_DEREG_BY_ID bodies of codecs/tests/pams_sbs.rs.
- pams_init_file: group initialization files with %PROFILE, %GNT, %QCT,
  %XGROUP and %SBS sections in the shape of the MessageQ Configuration
  Guide's listings (docs/messageq.md).
- pams_envelope: PAMS message headers (docs/messageq.md "PAMS messages on
  mqgate queues") of a broadcast copy and of an SBS request, with and
  without a message area, one cut short, and `group.queue` address texts.
- rv_subject: the use selector byte, then a pattern and a subject split by
  NUL: the wildcard examples of TIBCO Rendezvous Concepts ("Using Wildcards
  to Receive Related Subjects"), its valid and invalid subject names
  ("Subject Name Syntax"), reserved prefixes, whitespace and subjects at
  the 127, 196 and 255-byte limits (docs/rendezvous.md).
- rv_message: Rendezvous envelopes in mqgate's binary form (docs/rendezvous.md
  "Messages"): the example of that page, one field of every type, nested
  messages and message arrays, each with limit selector bytes 0 (default
  limits), 0x21 and 0xFF (small limits).
- mqtt_packet: the state selector byte (0 before CONNECT, 1 MQTT 3.1.1, 2
  MQTT 5.0; the high nibble the maximum packet size), then the packets
  mosquitto_sub and mosquitto_pub 2.0.11 sent (codecs/src/mqtt/tests.rs):
  CONNECTs of both levels with properties, a Will, user and password,
  SUBSCRIBE, a 5.0 PUBLISH with properties, DISCONNECTs.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
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
with open(os.path.join(ROOT, 'fixtures', 'mq', 'device_rfh2.dat'), 'rb') as src:
    seeds['device_rfh2'] = src.read()
if os.path.isdir(SHARED):
    for f in ('single_rfh2.dat', 'multiple_rfh2.dat'):
        with open(os.path.join(SHARED, f), 'rb') as src:
            seeds[f] = src.read()

def put(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed_' + name), 'wb') as f:
        f.write(data)

for k, v in seeds.items():
    for target in ('mq_chain_parse', 'mq_round_trip', 'mq_destination'):
        put(target, k, b'\0' + v)
    # ccsid_message: target selector, then the chain options byte.
    for t in range(6):
        put('ccsid_message', '%s_%d' % (k, t), bytes([t, 0]) + v)

# ccsid_convert: [from, to, policy, cut] + text. The CCSID bytes index
# ccsid::supported(), so the fuzzer picks the pair; the texts make each
# family's multi-byte sequences likely.
texts = {
    'ascii': b'Hello, World!\n',
    'utf8': 'Grüße, €, 日本語, 𝄞\n'.encode('utf-8'),
    'utf16be': 'Grüße €𝄞'.encode('utf-16-be'),
    'utf16le': 'Grüße €𝄞'.encode('utf-16-le'),
    'ebcdic037': 'Hello, World!'.encode('cp037') + b'\x15',
    'sjis': '日本語テキスト'.encode('shift_jis'),
    'big5': '中文字元'.encode('big5') + b'b\x88b',
    'gb18030': '中文€'.encode('gb18030') + b'\x81\x30\x81\x30',
    'euckr': '한국어'.encode('euc_kr'),
    'mixed_ebcdic': b'\xc1\x0e\x41\x41\x45\x41\x0f\xc2',
}
for i, (k, v) in enumerate(texts.items()):
    put('ccsid_convert', k, bytes([i * 7, i * 13 + 3, i, len(v) // 2]) + v)

for f in sorted(os.listdir(os.path.join(ROOT, 'fixtures', 'dmpmqmsg'))):
    with open(os.path.join(ROOT, 'fixtures', 'dmpmqmsg', f), 'rb') as src:
        put('dump_reader', f, src.read())

for f in sorted(os.listdir(os.path.join(ROOT, 'fixtures', 'mqsc'))):
    if f.endswith('.mqsc'):
        with open(os.path.join(ROOT, 'fixtures', 'mqsc', f), 'rb') as src:
            put('mqsc_script', f, src.read())

# FML32, mqgate's encoding (docs/tuxedo.md "FML32"): big-endian header of
# six int32 (F_MAGIC32 -10000, len, maxlen, nfields, nie, indxintvl), then
# fields sorted by id = (type << 25) | number, each value padded to 4.
def be(v): return struct.pack('>i', v)
def p4(b): return b + bytes((-len(b)) % 4)
SHORT, LONG, CHAR, FLOAT, DOUBLE, STRING, CARRAY = 0, 1, 2, 3, 4, 5, 6
FML32, VIEW32, MBSTRING = 10, 11, 12
def fid(t, n): return struct.pack('>I', (t << 25) | n)
def value(t, v):
    if t in (SHORT, LONG, CHAR): return be(v)
    if t == FLOAT: return struct.pack('>f', v)
    if t == DOUBLE: return struct.pack('>d', v)
    if t == STRING: return be(len(v) + 9) + be(len(v) + 1) + p4(v + b'\0')
    if t == CARRAY: return be(len(v) + 8) + be(len(v)) + p4(v)
    if t == MBSTRING: return be(len(v) + 12) + be(len(v)) + be(len(v)) + p4(v)
    if t == FML32: return be(len(v) + 8) + be(len(v)) + p4(v)
    if t == VIEW32: return be(len(v[0])) + p4(v[0]) + be(len(v[1])) + p4(v[1])
def fml(fields, maxlen=None):
    body = b''.join(fid(t, n) + value(t, v) for (t, n, v) in sorted(fields, key=lambda f: (f[0] << 25) | f[1]))
    n = 24 + len(body)
    return be(-10000) + be(n) + be(maxlen or n) + be(len(fields)) + be(0) + be(16) + body
inner = fml([(LONG, 1, 42), (STRING, 2, b'inner')])
put('tux_fml32', 'empty', fml([]))
put('tux_fml32', 'scalars', fml([(SHORT, 1, -7), (LONG, 2, 100000), (CHAR, 3, 65),
                                 (FLOAT, 4, 1.5), (DOUBLE, 5, -2.25)]))
put('tux_fml32', 'texts', fml([(STRING, 10, b'hello'), (STRING, 10, b''), (CARRAY, 11, b'\0\1\2'),
                               (MBSTRING, 12, b'\x1b$B')]))
put('tux_fml32', 'nested', fml([(LONG, 1, 1), (FML32, 20, inner), (VIEW32, 21, (b'MYVIEW', b'\0' * 6))], maxlen=1024))

# TPQCTL (Oracle Tuxedo "tpenqueue(3c)"), TMQNAMELEN 15: flags, deq_time,
# priority, diagnostic, msgid[32], corrid[32], replyqueue[16],
# failurequeue[16], padding to the long size, cltid[4], urcode, appkey,
# delivery_qos, reply_qos, exp_time. Selector byte: bit 0 ILP32, bit 1
# little-endian, bits 2-7 0 = TMQNAMELEN 15; then the call flags byte.
def tpqctl(lp64, little, flags, deq):
    l = 8 if lp64 else 4
    fmt = ('<' if little else '>') + ('q' if lp64 else 'i')
    lg = lambda v: struct.pack(fmt, v)
    b = lg(flags) + lg(deq) + lg(5) + lg(0) + b'MSGID'.ljust(32, b'\0') + b'CORRID'.ljust(32, b'\0')
    b += b'REPLYQ'.ljust(16, b'\0') + b'FAILQ'.ljust(16, b'\0')
    b += bytes((-len(b)) % l)
    b += b''.join(lg(v) for v in (1, 2, 3, 4, 0, 0, 0, 0, 0))
    return b
for lp64 in (True, False):
    for little in (True, False):
        sel = (0 if lp64 else 1) | (2 if little else 0)
        # TPQTIME_REL (0x400) | TPQMSGID (0x10), 90 s; TPQTIME_ABS (0x200).
        put('tux_tpqctl', 'rel_%d_%d' % (lp64, little), bytes([sel, 0]) + tpqctl(lp64, little, 0x410, 90))
        put('tux_tpqctl', 'abs_%d_%d' % (lp64, little), bytes([sel, 1]) + tpqctl(lp64, little, 0x200, 1700000000))

tux = os.path.join(ROOT, 'fixtures', 'tuxedo')
for f in sorted(os.listdir(tux)):
    target = {'.dmconfig': 'tux_dmconfig', '.fml': 'tux_fieldtbl'}.get(os.path.splitext(f)[1])
    if target:
        with open(os.path.join(tux, f), 'rb') as src:
            put(target, f, src.read())

idl = [os.path.join(ROOT, 'fixtures', 'rpc', 'demo.idl')]
for sub in ('valid', 'invalid'):
    d = os.path.join(ROOT, 'fixtures', 'idl', sub)
    idl += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith('.idl')]
for path in idl:
    with open(path, 'rb') as src:
        data = src.read()
    name = os.path.basename(os.path.dirname(path)) + '_' + os.path.basename(path)
    put('idl_parse', name, b'\0' + data)
    put('idl_parse', 'ext_' + name, b'\1' + data)

# idl_payload: first byte = program index << 1 | (1 = request, 0 = reply).
payloads = [b' ' * 40, b'+0000000001+0000000002', b'A+0000000005-0000000003', b'0' * 30,
            b'NAME      CITY      ITEM1ITEM2ITEM3', b'20240131X', b'Y' + b' ' * 20]
for prog in range(12):
    for d in (0, 1):
        for i, pl in enumerate(payloads):
            put('idl_payload', '%d_%d_%d' % (prog, d, i), bytes([prog << 1 | d]) + pl)
# pams_sbs: [type selector, byte order (bit 0: big-endian)] + body.
for sel in range(24):
    for order in (0, 1):
        for n in (0, 8, 16, 68, 100):
            put('pams_sbs', 'zero_%d_%d_%d' % (sel, order, n), bytes([sel, order]) + bytes(n))
packed = {
    'reg_ez_le': (0, b'\x14\x00\xa0\x0f\x03\x00\x07\x00'),
    'dereg_be': (1, b'\x00\x14\x13\xf6\x00\x02\x00\x07\x01'),
    'dereg_by_id_be': (1, b'\x00\x0a\x00\x05\x01'),
}
for name, (order, body) in packed.items():
    for sel in range(24):
        put('pams_sbs', '%s_%d' % (name, sel), bytes([sel, order]) + body)

init_files = {
    'gnt': "%GNT\n!\n! Name Group.Queue Scope\n------------------- ----------- -----\n"
           "Alarm_events 0.5110 G\nOperator_events 0.4810 L\n!\n%EOS\n",
    'sbs': "%SBS ******* SBS Server Initialization Section ************\n*\n"
           "HEARTBEAT 1000\nCOMM_SERVICE 10 DG/DMQ ! default emulated broadcast path\n"
           "GROUPS * ! all known server groups\nREGISTER * ! all universal MOTs\n"
           "END_COMM_SERVICE\n%EOS\n",
    'profile_qct': "%PROFILE   ***** Profile *****\nenable_sbs   no\nENABLE_MRS   NO\n"
                   "ENABLE_JRN   NO\n%EOS\n%QCT\n"
                   "!Name   Num Byte  Msg Enbl UCB Type Owner Conf Perm Scope Sec\n"
                   "FEED_IN  1  64000 100 ALL  .   .    0     II   Y    G     N\n"
                   "AUDIT_Q  3  .     .   none .   .    .     .    n    l     .\n%EOS\n",
    'xgroup': "%XGROUP\nGROUP_TEN 10 host-a . 5000\n%EOS\n",
}
for name, text in init_files.items():
    put('pams_init_file', name, text.encode('utf-8'))
def qaddr(group, queue): return struct.pack('>HH', queue, group)
def pams_header(cls, typ, prio, endian, otarget, source, osource, resp_q, corr):
    return (b'PMH ' + struct.pack('>ihhiiii', 1, cls, typ, prio, 39, 5, endian)
            + otarget + source + osource + resp_q + corr.ljust(32, b'\0') + bytes(20))
copy = pams_header(1, 2, 0, 1, qaddr(10, 5110), qaddr(10, 5110), qaddr(10, 7), qaddr(0, 0), b'')
request = pams_header(29, -1196, 9, 0, qaddr(10, 99), qaddr(10, 3), qaddr(10, 3), qaddr(10, 3), b'corr-1')
put('pams_envelope', 'copy', copy + b'IBM 101.25')
put('pams_envelope', 'copy_no_area', copy)
put('pams_envelope', 'request', request + bytes(68))
put('pams_envelope', 'short', copy[:95])
for text in ('10.20', '0.5110', '65535.65535', '7.', '10.65536', ' 1.2'):
    put('pams_envelope', 'addr_' + text.strip().replace('.', '_'), text.encode('utf-8'))
rv_pairs = [
    ('RUN.*', 'RUN.away'), ('RUN.>', 'RUN.SWIM.BIKE.SKATE'), ('*.your.*', 'Pick.up.your.foot'),
    ('Yankees.vs.*', 'Giants.vs.Yankees'), ('_RV.*.SYSTEM.>', '_RV.ERROR.SYSTEM.CLIENT.ILLEGAL_PUBLISH'),
    ('NEWS.LOCAL.POLITICS.CITY_COUNCIL', 'NEWS.LOCAL.POLITICS.CITY_COUNCIL'),
    ('News..Natural_Disasters.Flood', 'WRONG.'), ('.TRIPLE.WRONG..', 'abc*xyz'),
    ('Foo.>.baz', 'foo>'), ('_INBOX.>', '_INBOX.C0A80001.1'), ('_LOCAL.A.B', '_RVCM.X'),
    ('A B.C\tD', 'A.\x0c.\r'), ('Zürich.*', 'Zürich.Börse'),
    ('x' * 127 + '.>', 'x' * 127 + '.' + 'y' * 68),
    ('.'.join(['a'] * 65), 'x' * 100 + '.' + 'y' * 154),
]
for i, (pattern, subject) in enumerate(rv_pairs):
    for sel in range(8):
        put('rv_subject', '%d_%d' % (i, sel), bytes([sel]) + (pattern + '\0' + subject).encode('utf-8'))
def rv_text(b): return bytes([len(b)]) + b
def rv_field(t, name, value, fid=0):
    n = bytes([0xFF]) if name is None else rv_text(name)
    return bytes([t]) + struct.pack('>H', fid) + n + struct.pack('>I', len(value)) + value
def rv_envelope(subject, fields, reply=None, cm=None):
    flags = (1 if reply else 0) | (2 if cm else 0)
    body = rv_text(subject)
    if reply: body += rv_text(reply)
    if cm: body += rv_text(cm[0]) + struct.pack('>Qd', cm[1], cm[2])
    body += b''.join(fields)
    return b'RVM \x01' + bytes([flags]) + struct.pack('>I', 10 + len(body)) + body
def rv_msgarray(msgs): return b''.join(struct.pack('>I', len(m)) + m for m in msgs)
def rv_strarray(ss): return b''.join(struct.pack('>I', len(s)) + s for s in ss)
nested = rv_field(9, b'firm', b'\x01')
rv_seeds = {
    'example': rv_envelope(b'QUOTE.IBM', [rv_field(25, b'price', struct.pack('>d', 101.25), 1),
                                         rv_field(8, None, b'ok'), rv_field(1, b'quote', nested)],
                           b'_INBOX.1', (b'PRICER', 7, 60.0)),
    'all_types': rv_envelope(b'ALL', [
        rv_field(1, b'm', b''), rv_field(3, b'dt', struct.pack('>qI', -1, 500000000)),
        rv_field(7, b'o', b'\x00\xff'), rv_field(8, b's', 'Grüße'.encode('utf-8')),
        rv_field(9, b'b', b'\x00'), rv_field(14, b'i8', b'\x80'), rv_field(15, b'u8', b'\xff'),
        rv_field(16, b'i16', struct.pack('>h', -2)), rv_field(17, b'u16', struct.pack('>H', 2)),
        rv_field(18, b'i32', struct.pack('>i', -3)), rv_field(19, b'u32', struct.pack('>I', 3)),
        rv_field(20, b'i64', struct.pack('>q', -4)), rv_field(21, b'u64', struct.pack('>Q', 4)),
        rv_field(24, b'f32', struct.pack('>f', 1.5)), rv_field(25, b'f64', struct.pack('>d', -2.5)),
        rv_field(26, b'port', struct.pack('>H', 7500)), rv_field(27, b'addr', bytes([10, 0, 0, 1])),
        rv_field(34, b'a8', b'\x01\x02'), rv_field(35, b'au8', b'\x01'), rv_field(36, b'a16', bytes(4)),
        rv_field(37, b'au16', bytes(2)), rv_field(38, b'a32', bytes(8)), rv_field(39, b'au32', bytes(4)),
        rv_field(40, b'a64', bytes(8)), rv_field(41, b'au64', bytes(16)), rv_field(44, b'af32', bytes(4)),
        rv_field(45, b'af64', bytes(8)), rv_field(47, b'xml', b'<a/>'),
        rv_field(48, b'sa', rv_strarray([b'x', b''])), rv_field(49, b'ma', rv_msgarray([nested, b''])),
        rv_field(200, b'user', b'\x09')]),
    'deep': rv_envelope(b'D', [rv_field(1, None, rv_field(1, None, rv_field(1, b'x', nested)))]),
    'ids': rv_envelope(b'I', [rv_field(15, b'a', b'\x01', 4), rv_field(1, b'n', rv_field(15, b'a', b'\x02', 4), 5)]),
}
for name, env in rv_seeds.items():
    for sel in (0, 0x21, 0xFF):
        put('rv_message', '%s_%02x' % (name, sel), bytes([sel]) + env)
print('seeds written')

# mqtt_packet: packets captured from mosquitto_sub / mosquitto_pub 2.0.11.
MQTT = {
    'sub311': (0xF0, '101300044d5154540400003c000744455630303031'),
    'sub311_rest': (0xF1, '820a00010005494e424f5801e000'),
    'sub5': (0xF0, '101c00044d5154540500003c081100000e10210001000744455630303031'),
    'sub5_rest': (0xF2, '820b0001000005494e424f5801e00104'),
    'pub5': (0xF2, '3248000d4150502e494e404d51474154450001312600085072696f7269747900013509000361626308000d5245504c5940444556303030310300054d51535452020000003c68656c6c6f'),
    'will311': (0xF0, '102d00044d51545404ce003c000744455630303032000557494c4c530004676f6e6500036465760006736563726574'),
    'pub311': (0xF1, '300a00064150502e494e6869c000'),
    'too_big': (0x01, '3080808001'),
}
for name, (sel, hexdata) in MQTT.items():
    put('mqtt_packet', name, bytes([sel]) + bytes.fromhex(hexdata))
