import { Presets, SingleBar } from "cli-progress";

/** Progress of one part of the run on stderr: a bar on a terminal, one line per step otherwise (CI logs). */
export interface Progress {
  step(label: string): void;
  done(): void;
}

export function startProgress(section: string, total: number): Progress {
  return process.stderr.isTTY ? barProgress(section, total) : lineProgress(section, total);
}

function barProgress(section: string, total: number): Progress {
  const bar = new SingleBar(
    { format: `${section.padEnd(7)} [{bar}] {value}/{total} {label}`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  bar.start(total, 0, { label: "" });
  return {
    step: (label) => bar.increment(1, { label }),
    done: () => bar.stop(),
  };
}

function lineProgress(section: string, total: number): Progress {
  let value = 0;
  const started = Date.now();
  return {
    step: (label) => {
      value += 1;
      process.stderr.write(`${section} ${value}/${total} ${label} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    },
    done: () => {},
  };
}
