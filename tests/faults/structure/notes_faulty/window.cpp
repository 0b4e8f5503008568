// Seeded twins for tools/notes_index.py: every note indexed where it is written.

// Note [Clamped ends]
// A window that runs past the image repeats its edge sample, as the
// reference blurs do, so the outermost outputs keep their weight.
int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Note [Odd widths]: an even width has no centre tap, so it is made odd.
int odd_width(int w) { return w | 1; }

int first_tap(int w) { return -(odd_width(w) / 2); }  // Note [Odd widths]

// Note [Unindexed centre]: the seeded fault, a note the index lacks.
int centre(int w) { return odd_width(w) / 2; }

int last_tap(int w) { return centre(w); }  // Note [Dangling reference], the second fault

// Note [Clamped ends]
// The third fault: the same note written out a second time.
int clamp_low(int i) { return i < 0 ? 0 : i; }
