//! Plain-text tables with columns sized to their content (deterministic output).

/// A table: a header row and data rows, numbers right-aligned by default.
#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    left: Vec<usize>,
}

impl Table {
    /// A table with these column headers.
    pub fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            left: Vec::new(),
        }
    }

    /// Aligns these columns to the left (text columns).
    pub fn left_align(&mut self, columns: &[usize]) {
        self.left.extend_from_slice(columns);
    }

    /// Adds a row (missing cells are empty, extra cells are dropped).
    pub fn row(&mut self, mut cells: Vec<String>) {
        cells.resize(self.headers.len(), String::new());
        self.rows.push(cells);
    }

    /// The table as lines, each starting with `indent`, without trailing spaces.
    pub fn render(&self, indent: &str) -> String {
        let width = |c: usize| {
            self.rows
                .iter()
                .map(|r| r[c].chars().count())
                .chain([self.headers[c].chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.headers.len()).map(width).collect();
        let mut out = String::new();
        for row in std::iter::once(&self.headers).chain(&self.rows) {
            let mut line = String::from(indent);
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = widths[c] - cell.chars().count();
                if self.left.contains(&c) {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                } else {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_their_widest_cell() {
        let mut t = Table::new(&["n", "name"]);
        t.left_align(&[1]);
        t.row(vec!["10".into(), "a".into()]);
        t.row(vec!["2".into(), "long".into()]);
        assert_eq!(t.render("  "), "   n  name\n  10  a\n   2  long\n");
    }
}
