// SPDX-License-Identifier: GPL-2.0
// make bench-big's node workload (bench/big/bench-big.sh): a fixed amount
// of work, ROUNDS (argv[2], default 40) rounds, so that a profiler's cost
// shows as CPU added to the same work.  Each round recurses a few frames
// deep in JavaScript and then spends most of its time in libnode's C++
// (JSON, crypto, typed-array sorting, string search): deep native stacks
// under JIT frames.  Main thread only.
'use strict';
const crypto = require('crypto');

const rounds = Number(process.argv[2] || 40);

function record(i) {
	return { id: i, name: 'item' + i, tags: ['a', 'b', String(i % 7)],
		 nested: { x: i * 3, y: [i, i + 1, i + 2] } };
}

function jsonWork(n) {
	const list = [];
	for (let i = 0; i < n; i++)
		list.push(record(i));
	const s = JSON.stringify(list);
	return JSON.parse(s).length + s.length;
}

function hashWork(n) {
	let h = '';
	for (let i = 0; i < n; i++)
		h = crypto.createHash('sha256').update(h + i).digest('hex');
	return h.length;
}

function sortWork(n) {
	const a = new Float64Array(n);
	for (let i = 0; i < n; i++)
		a[i] = Math.sin(i) * 1e6;
	a.sort();
	return a[n >> 1];
}

function textWork(n) {
	const s = 'lorem ipsum dolor sit amet '.repeat(n);
	return s.split(' ').length + s.indexOf('amet lorem', n) +
	       Buffer.from(s).toString('base64').length;
}

function deep(depth, i) {
	if (depth > 0)
		return deep(depth - 1, i) + 1;
	return jsonWork(400) + hashWork(200) + sortWork(20000) + textWork(2000);
}

let sum = 0;
for (let i = 0; i < rounds; i++)
	sum += deep(8, i);
console.log(sum > 0 ? 'ok' : 'bad');
