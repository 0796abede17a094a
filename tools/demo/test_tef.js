#!/usr/bin/env node
// SPDX-License-Identifier: MIT
/*
 * Validate swimlanes (*.trace.json, Documentation/swimlane.rst) with two
 * real Trace Event Format parsers from npm; TAP on stdout.
 *
 *   node tools/demo/test_tef.js [--self-test] [FILE|DIR]...
 *
 * Each trace must:
 *   - be valid UTF-8 and JSON;
 *   - build in @tracerbench/trace-model (which needs a "cat" on every
 *     event, metadata included) with every event on a thread (tid 0 is
 *     "no thread" there) whose thread_name it knows;
 *   - parse in @paulirish/trace_engine (Chrome DevTools' trace engine)
 *     without warnings, every lane with bars listed under its name with
 *     all its bars, and every flow bound: the engine binds a flow event
 *     to the slice with the same pid, tid, cat and ts, and a flow counts
 *     when at least two of its events are bound.
 *
 * --self-test also checks the checker: a small trace written as the
 * format intends must pass and each of its known-bad mutations fail.
 *
 * The parsers are looked for in $PTO_NPM_DIR/node_modules, else
 * ${PTO_CACHE:-${XDG_CACHE_HOME:-~/.cache}/pto-npu}/npm/node_modules, where
 * tools/install-deps.sh installs them; without them (npm unreachable) every
 * test is reported as a TAP SKIP.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

function npmDir() {
	if (process.env.PTO_NPM_DIR)
		return path.join(process.env.PTO_NPM_DIR, 'node_modules');
	const cache = process.env.PTO_CACHE ||
		path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pto-npu');
	return path.join(cache, 'npm', 'node_modules');
}

async function loadParsers() {
	const dir = npmDir();
	let tracerbench, engine;
	try {
		tracerbench = require(path.join(dir, '@tracerbench', 'trace-model'));
		engine = await import(pathToFileURL(path.join(dir, '@paulirish', 'trace_engine',
			'models', 'trace', 'trace.js')).href);
	} catch (e) {
		return { error: `parsers not installed in ${dir} (tools/install-deps.sh; npm unreachable?): ${e.message.split('\n')[0]}` };
	}
	// The engine wants a DOMRect (its README: polyfill it in Node).
	if (typeof globalThis.DOMRect === 'undefined') {
		globalThis.DOMRect = class DOMRect {
			constructor(x = 0, y = 0, width = 0, height = 0) {
				Object.assign(this, { x, y, width, height });
			}
		};
	}
	return { tracerbench, engine };
}

function isMeta(e) { return e.ph === 'M'; }
function evName(e) { return `${e.ph} "${e.name}" pid ${e.pid} tid ${e.tid} ts ${e.ts}`; }

/* Problems as strings; none: the trace is good. */
function checkText(buf) {
	try {
		new TextDecoder('utf-8', { fatal: true }).decode(buf);
	} catch (e) {
		return { problems: ['not valid UTF-8'] };
	}
	try {
		return { trace: JSON.parse(buf.toString('utf8')), problems: [] };
	} catch (e) {
		return { problems: [`not JSON: ${e.message}`] };
	}
}

function checkTracerbench(tb, trace) {
	const problems = [];
	let model;
	try {
		model = tb.buildModel(trace);
	} catch (e) {
		const noCat = (trace.traceEvents || []).filter((e) => typeof e.cat !== 'string');
		problems.push(`buildModel throws ${e.constructor.name}: ${e.message}` +
			(noCat.length ? ` (${noCat.length} events without "cat", first: ${evName(noCat[0])})` : ''));
		return problems;
	}
	const events = (trace.traceEvents || []).filter((e) => !isMeta(e));
	const onThreads = new Map();
	for (const p of model.processes) {
		if (!p.name)
			problems.push(`process ${p.id} has no process_name`);
		for (const t of p.threads) {
			onThreads.set(`${p.id}/${t.id}`, t);
			if (t.events.length && !t.name)
				problems.push(`thread ${p.id}/${t.id} has events but no thread_name`);
		}
	}
	const orphans = events.filter((e) => !e.tid || !onThreads.has(`${e.pid}/${e.tid}`));
	if (orphans.length)
		problems.push(`${orphans.length} events on no thread (tid 0 or unknown), first: ${evName(orphans[0])}`);
	return problems;
}

async function checkEngine(engine, trace) {
	const problems = [];
	const events = trace.traceEvents || [];
	let data;
	try {
		const model = engine.TraceModel.Model.createWithAllHandlers();
		await model.parse(events);
		data = model.parsedTrace().data;
	} catch (e) {
		return [`parse throws ${e.constructor.name}: ${e.message}`];
	}
	for (const [kind, list] of data.Warnings.perWarning)
		problems.push(`warning ${kind} on ${list.length} events, first: ${evName(list[0])}`);

	const names = new Map();
	const bars = new Map();
	for (const e of events) {
		if (isMeta(e) && e.name === 'thread_name')
			names.set(`${e.pid}/${e.tid}`, e.args && e.args.name);
		if (e.ph === 'X')
			bars.set(`${e.pid}/${e.tid}`, (bars.get(`${e.pid}/${e.tid}`) || 0) + 1);
	}
	const threads = new Map();
	for (const t of engine.Handlers.Threads.threadsInTrace(data))
		threads.set(`${t.pid}/${t.tid}`, t);
	for (const [lane, n] of bars) {
		const t = threads.get(lane);
		if (!t) {
			problems.push(`lane ${lane} (${names.get(lane)}) with ${n} bars is not a thread`);
			continue;
		}
		if (t.name !== names.get(lane))
			problems.push(`lane ${lane} is named "${t.name}", its thread_name is "${names.get(lane)}"`);
		const got = t.entries.filter((e) => e.ph === 'X').length;
		if (got !== n)
			problems.push(`lane ${lane} (${names.get(lane)}): ${got} of its ${n} bars`);
	}

	// Flows: one per start event (id, cat, name); bound when two events are.
	const starts = events.filter((e) => e.ph === 's');
	const bound = data.Flows.flows.length;
	if (bound !== starts.length) {
		const slices = new Set(events.filter((e) => e.ph === 'X' || e.ph === 'i' || e.ph === 'I')
			.map((e) => `${e.ts}/${e.pid}/${e.tid}/${e.cat}`));
		const loose = events.filter((e) => (e.ph === 's' || e.ph === 'f') &&
			!slices.has(`${e.ts}/${e.pid}/${e.tid}/${e.cat}`));
		problems.push(`${bound} of ${starts.length} flows bound` +
			(loose.length ? `; ${loose.length} flow events match no slice's (ts, pid, tid, cat), first: ${evName(loose[0])} cat "${loose[0].cat}"` : ''));
	}
	return problems;
}

async function checkFile(parsers, file, buf) {
	const out = [];
	const text = checkText(buf);
	out.push([`${file}: valid UTF-8 JSON`, text.problems]);
	if (!text.trace) {
		out.push([`${file}: @tracerbench/trace-model`, ['not parsed']]);
		out.push([`${file}: @paulirish/trace_engine`, ['not parsed']]);
		return out;
	}
	out.push([`${file}: @tracerbench/trace-model`, checkTracerbench(parsers.tracerbench, text.trace)]);
	out.push([`${file}: @paulirish/trace_engine`, await checkEngine(parsers.engine, text.trace)]);
	return out;
}

/* A small trace as the format intends: what each mutation breaks. */
function goodTrace() {
	const m = (tid, name) => [
		{ ph: 'M', cat: '__metadata', pid: 1, tid, name: 'thread_name', args: { name } },
		{ ph: 'M', cat: '__metadata', pid: 1, tid, name: 'thread_sort_index', args: { sort_index: tid } },
	];
	return {
		displayTimeUnit: 'ns',
		traceEvents: [
			{ ph: 'M', cat: '__metadata', pid: 1, name: 'process_name', args: { name: 'pto_npu device 0' } },
			...m(1, 'scheduler'), ...m(2, 'AIC_0'), ...m(3, 'AIV_0'),
			...m(4, 'doorbell'), ...m(5, 'scheduler: resolve'),
			// The scheduler's own work (cat "sched"): intakes, phases, walks.
			{ ph: 'X', cat: 'sched', pid: 1, tid: 4, name: 'intake mm', ts: 0.0, dur: 0.3, args: {} },
			{ ph: 'X', cat: 'sched', pid: 1, tid: 4, name: 'intake add', ts: 0.3, dur: 0.2, args: {} },
			{ ph: 'X', cat: 'sched', pid: 1, tid: 1, name: 'dispatch', ts: 0.3, dur: 0.4, args: {} },
			{ ph: 'X', cat: 'sched', pid: 1, tid: 1, name: 'complete', ts: 6.0, dur: 0.6, args: {} },
			{ ph: 'X', cat: 'sched', pid: 1, tid: 5, name: 'resolve mm', ts: 6.2, dur: 0.4, args: {} },
			{ ph: 'X', cat: 'sched', pid: 1, tid: 1, name: 'dispatch', ts: 6.6, dur: 0.0, args: {} },
			{ ph: 'X', cat: 'block', pid: 1, tid: 2, name: 'mm', ts: 1.0, dur: 5.0, args: {} },
			{ ph: 's', cat: 'block', pid: 1, tid: 2, name: 'dependency', id: 1, ts: 1.0 },
			{ ph: 'X', cat: 'block', pid: 1, tid: 3, name: 'add', ts: 7.0, dur: 2.0, args: {} },
			{ ph: 'f', bp: 'e', cat: 'block', pid: 1, tid: 3, name: 'dependency', id: 1, ts: 7.0 },
			{ ph: 'i', s: 't', cat: 'skip', pid: 1, tid: 1, name: 'skip x', ts: 9.5, args: {} },
		],
	};
}

function mutations() {
	const mut = (name, f) => {
		const t = goodTrace();
		f(t.traceEvents);
		return [name, Buffer.from(JSON.stringify(t))];
	};
	return [
		mut('metadata without cat', (ev) => { for (const e of ev) if (e.ph === 'M') delete e.cat; }),
		mut('scheduler lane on tid 0', (ev) => { for (const e of ev) if (e.tid === 1) e.tid = 0; }),
		mut('flow start off its bar', (ev) => { ev.find((e) => e.ph === 's').ts = 5.9995; }),
		mut('flow of another cat than its bars', (ev) => { for (const e of ev) if (e.ph === 's' || e.ph === 'f') e.cat = 'dependency'; }),
		mut('lane without thread_name', (ev) => { ev.splice(ev.findIndex((e) => e.name === 'thread_name' && e.tid === 3), 1); }),
		['invalid UTF-8 name', Buffer.concat([Buffer.from(JSON.stringify(goodTrace())).subarray(0, 20),
			Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(goodTrace())).subarray(20)])],
	];
}

function traceFiles(args) {
	const files = [];
	for (const a of args) {
		if (fs.statSync(a).isDirectory()) {
			for (const f of fs.readdirSync(a).sort())
				if (f.endsWith('.trace.json'))
					files.push(path.join(a, f));
		} else {
			files.push(a);
		}
	}
	return files;
}

async function main() {
	const argv = process.argv.slice(2);
	const self = argv.includes('--self-test');
	const files = traceFiles(argv.filter((a) => a !== '--self-test'));
	const parsers = await loadParsers();
	const tests = [];
	if (parsers.error) {
		const n = (self ? 1 + mutations().length : 0) + files.length * 3;
		console.log(`1..${n}`);
		for (let i = 1; i <= n; i++)
			console.log(`ok ${i} # SKIP ${parsers.error}`);
		return 0;
	}
	if (self) {
		const good = await checkFile(parsers, 'self-test good trace', Buffer.from(JSON.stringify(goodTrace())));
		tests.push(['self-test: the good trace passes', good.flatMap(([n, p]) => p.map((x) => `${n}: ${x}`))]);
		for (const [name, buf] of mutations()) {
			const r = await checkFile(parsers, name, buf);
			const caught = r.some(([, p]) => p.length);
			tests.push([`self-test: fails on ${name}`, caught ? [] : ['passed, should have failed']]);
		}
	}
	for (const f of files)
		tests.push(...await checkFile(parsers, path.basename(f), fs.readFileSync(f)));
	console.log(`1..${tests.length}`);
	let failed = 0;
	tests.forEach(([name, problems], i) => {
		if (problems.length) {
			failed++;
			console.log(`not ok ${i + 1} ${name}`);
			for (const p of problems)
				console.log(`# ${p}`);
		} else {
			console.log(`ok ${i + 1} ${name}`);
		}
	});
	if (!files.length && !self)
		console.log('# no *.trace.json given');
	return failed ? 1 : 0;
}

main().then((rc) => { process.exitCode = rc; }, (e) => { console.error(e); process.exitCode = 2; });
