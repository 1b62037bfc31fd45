#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets of fuzz/ into corpus/<target>/ (docs/fuzzing.md).

Run from fuzz/: `python3 make_seeds.py`. channel_frame: frame streams as
docs/channel-protocol.md "Frames" lays them out (u32 big-endian length, type
byte, payload), a sender's whole session and a receiver's answers, a MESSAGE
carrying fixtures/mq/device_rfh2.dat, and one frame of each type. The first
two bytes of each input select the codec's maximum frame length and how the
stream is cut into reads (fuzz_targets/channel_frame.rs).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..')

def frame(kind, payload):
    return struct.pack('>IB', len(payload) + 1, kind) + payload
def s(text):
    b = text.encode('utf-8')
    return struct.pack('>H', len(b)) + b
def limits(batch, maxmsg, hb):
    return struct.pack('>III', batch, maxmsg, hb)
hello = frame(0x01, struct.pack('>H', 1) + limits(50, 4 << 20, 30000) + struct.pack('>Q', 7)
              + s('TO.MQGATE') + s('QM1') + s('MQGATE'))
hello_ack = frame(0x02, struct.pack('>H', 1) + limits(10, 1000, 0) + struct.pack('>Q', 8) + s('MQGATE'))
with open(os.path.join(ROOT, 'fixtures', 'mq', 'device_rfh2.dat'), 'rb') as f:
    xmit = f.read()
message = frame(0x03, b'\0' + xmit)
fast = frame(0x03, b'\x01' + b'XQH \0\0\0\x01')
end_batch = frame(0x04, struct.pack('>QI', 9, 2))
confirm = frame(0x05, struct.pack('>Q', 9))
heartbeat = frame(0x06, b'')
close = frame(0x07, struct.pack('>i', 2540) + s('unknown channel: TO.MQGATE'))
seeds = {
    'sender_session': bytes([0, 0]) + hello + message + message + end_batch + heartbeat + close,
    'receiver_answers': bytes([0, 7]) + hello_ack + confirm + heartbeat + close,
    'fast_path': bytes([3, 1]) + hello + fast + fast + close,
}
for name, f in [('hello', hello), ('hello_ack', hello_ack), ('message', message), ('fast', fast),
                ('end_batch', end_batch), ('confirm', confirm), ('heartbeat', heartbeat), ('close', close)]:
    seeds['one_' + name] = bytes([3, 63]) + f
d = os.path.join(HERE, 'corpus', 'channel_frame')
os.makedirs(d, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(d, 'seed_' + name), 'wb') as out:
        out.write(data)
print('seeds written')
