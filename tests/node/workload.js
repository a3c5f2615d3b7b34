// SPDX-License-Identifier: GPL-2.0
// A JavaScript workload for uwprof's node test (tests/host/node_vm.sh):
// hot functions that call each other and call into native code (crypto,
// JSON, typed-array sorting in C++ builtins and the runtime), on the main
// thread and on a worker thread, for SECONDS (argv[2], default 5).
'use strict';
const { Worker, isMainThread, parentPort } = require('worker_threads');
const crypto = require('crypto');

const seconds = Number(process.argv[2] || 5);

function leafMath(n) {
	let x = n | 0;
	for (let i = 0; i < 2000; i++)
		x = (Math.imul(x, 1103515245) + 12345) | 0;
	return x;
}

function hashIt(s) {
	return crypto.createHash('sha256').update(s).digest('hex');
}

function encode(n) {
	return JSON.stringify({ n, v: leafMath(n), s: 'x'.repeat(n % 64) });
}

function middle(n) {
	const s = encode(n);
	return hashIt(s).length + JSON.parse(s).v;
}

function sortSome(n) {
	const a = new Float64Array(256);
	for (let i = 0; i < a.length; i++)
		a[i] = (leafMath(n + i) & 0xffff) / 7;
	a.sort();
	return a[0];
}

function top(n) {
	return middle(n) + sortSome(n) + leafMath(n);
}

function run(label) {
	const end = Date.now() + seconds * 1000;
	let sum = 0, k = 0;
	while (Date.now() < end)
		for (let i = 0; i < 200; i++)
			sum += top(k++);
	return label + ' ' + k + ' ' + (sum | 0);
}

if (isMainThread) {
	const w = new Worker(__filename, { argv: [String(seconds)] });
	w.on('message', (m) => console.log('worker:', m));
	console.log('main:', run('main'));
} else {
	parentPort.postMessage(run('worker'));
}
