/** Readings of a Linux process from /proc (the bench runs on Linux only, like n8n's cache here). */
import { readFileSync } from 'node:fs';

/** User + system CPU time of a process, all threads, in milliseconds (clock ticks of 10 ms). */
export const cpuMs = (pid: number | 'self'): number => {
	// the fields after the command name, which is in parentheses and may hold spaces
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** A size field of /proc/<pid>/status (VmRSS, VmHWM, …) in bytes. */
export const readStatus = (pid: number | 'self', field: string): number => {
	const line = readFileSync(`/proc/${pid}/status`, 'utf8')
		.split('\n')
		.find((candidate) => candidate.startsWith(`${field}:`));
	return Number(line?.match(/(\d+)\s*kB/)?.[1] ?? Number.NaN) * 1024;
};
