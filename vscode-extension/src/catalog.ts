/** The problem catalogue (`kata.listProblems`) as quick-pick entries. */

export interface ProblemSummary {
  slug: string;
  title: string;
  difficulty?: string;
  category?: string;
  tags?: string[];
  hasBenchmark?: boolean;
}

export interface ProblemPick {
  label: string;
  description: string;
  detail: string;
  slug: string;
}

export function problemPicks(problems: ProblemSummary[]): ProblemPick[] {
  return problems.map((p) => ({
    label: p.hasBenchmark ? `$(dashboard) ${p.title}` : p.title,
    description: p.slug,
    detail: [p.difficulty, p.category, (p.tags ?? []).join(', '), p.hasBenchmark ? 'CUDA benchmark' : '']
      .filter((part) => part)
      .join(' · '),
    slug: p.slug,
  }));
}
