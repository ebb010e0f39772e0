// three.mjs: three.js's interpolants on the same curves as bench_curve.c, in the same run
// (tests/bench/run.sh): a 1,000-key FLOAT3 LinearInterpolant (values sin(7k + i)) and a
// 1,000-key QuaternionLinearInterpolant (unit quaternions 0.3 rad apart about (1, 2, 3)),
// each swept over 10^6 increasing times, the median of 7 runs. Prints name<TAB>value<TAB>unit.
import { LinearInterpolant, QuaternionLinearInterpolant } from 'three';

const keys = 1000, samples = 1e6, reps = 7;
const times = new Float32Array(keys).map((_, k) => Math.fround(k * 0.01));

function rate(interpolant) {
  const runs = [];
  let sink = 0;
  for (let rep = 0; rep < reps; rep++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < samples; i++) sink += interpolant.evaluate(Math.fround(9.99 * i / samples))[0];
    runs.push(samples / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  if (Number.isNaN(sink)) throw new Error('no samples');
  return runs.sort((a, b) => a - b)[reps >> 1] / 1e6;
}

const linear = new Float32Array(keys * 3);
for (let k = 0; k < keys; k++) for (let i = 0; i < 3; i++) linear[k * 3 + i] = Math.sin(k * 7 + i);
const quats = new Float32Array(keys * 4);
for (let k = 0; k < keys; k++) {
  const half = 0.15 * k, l = Math.sqrt(14), s = Math.sin(half);
  quats.set([s / l, 2 * s / l, 3 * s / l, Math.cos(half)], k * 4);
}
console.log(`sweep FLOAT3 linear 1000 keys (three.js)\t${rate(new LinearInterpolant(times, linear, 3, new Float32Array(3))).toFixed(1)}\tmillion samples/s`);
console.log(`sweep quaternion slerp 0.3 rad apart 1000 keys (three.js)\t${rate(new QuaternionLinearInterpolant(times, quats, 4, new Float32Array(4))).toFixed(1)}\tmillion samples/s`);
