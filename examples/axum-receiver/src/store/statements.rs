//! The PostgreSQL statements, read from the npm package's own file (one source of truth):
//! `sql/postgres.sql`, compiled in, split at start into its
//! `-- statement: NAME` sections exactly as `scripts/build-receiver.mjs` splits it for the npm
//! package (comment lines and blank lines dropped, a trailing ` -- comment` cut; `schema` kept
//! whole, to run as one simple query, the others as their first statement).

/// The file, as the npm package's build reads it.
const POSTGRES_SQL: &str = include_str!("../../../../sql/postgres.sql");

/// The statements the PostgreSQL store runs.
#[derive(Debug)]
pub struct Statements {
    /// The tables and index, under an advisory lock: one simple query (one transaction).
    pub schema: String,
    /// A read of every column (when the tables were there already).
    pub check: String,
    /// Writes that change nothing, refused by a read-only database or role.
    pub writable: String,
    /// The encoding and the columns' types.
    pub columns: String,
    /// One delivery: de-duplicated, ordered, recorded; returns the decision or no row.
    pub record: String,
    /// An authentic delivery that is no recordable event.
    pub quarantine: String,
}

impl Statements {
    /// The statements of the compiled-in file; an error names a section that is missing.
    pub fn postgres() -> Result<Statements, String> {
        Statements::parse(POSTGRES_SQL)
    }

    fn parse(text: &str) -> Result<Statements, String> {
        let sections = sections(text);
        let section = |name: &str| {
            sections
                .iter()
                .find(|(found, _)| *found == name)
                .map(|(_, body)| body.as_str())
                .filter(|body| !body.is_empty())
                .ok_or_else(|| format!("sql/postgres.sql has no \"-- statement: {name}\" section"))
        };
        let first = |name: &str| -> Result<String, String> {
            let body = section(name)?;
            body.split(";\n")
                .map(|s| s.strip_suffix(';').unwrap_or(s).trim())
                .find(|s| !s.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| format!("the \"{name}\" section of postgres.sql holds no statement"))
        };
        Ok(Statements {
            schema: section("schema")?.to_owned(),
            check: first("check")?,
            writable: first("writable")?,
            columns: first("columns")?,
            record: first("record")?,
            quarantine: first("quarantine")?,
        })
    }
}

/// The `-- statement: NAME` sections, in order, each its lines joined by `\n`.
fn sections(text: &str) -> Vec<(&str, String)> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        if let Some(name) = statement_name(line) {
            sections.push((name, Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut() {
            let trimmed = line.trim_start();
            if !(trimmed.is_empty() || trimmed.starts_with("--")) {
                lines.push(cut_comment(line).trim_end());
            }
        }
    }
    sections
        .into_iter()
        .map(|(name, lines)| (name, lines.join("\n")))
        .collect()
}

/// `NAME` of a line `-- statement: NAME` (lower-case letters and underscores).
fn statement_name(line: &str) -> Option<&str> {
    let name = line.strip_prefix("-- statement: ")?.trim_end();
    let valid = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    valid.then_some(name)
}

/// The line without a trailing comment: from the first run of white space followed by `--`
/// and a white space character (as the build's `/\s+--\s.*$/`).
fn cut_comment(line: &str) -> &str {
    let mut run_start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            run_start.get_or_insert(i);
            continue;
        }
        if let Some(start) = run_start.take() {
            let rest = line.get(i..).unwrap_or("");
            let after = rest.strip_prefix("--");
            if after.is_some_and(|after| after.starts_with(char::is_whitespace)) {
                return line.get(..start).unwrap_or(line);
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packaged_file_has_every_statement() {
        let sql = Statements::postgres().unwrap();
        assert!(sql.schema.starts_with("SELECT pg_advisory_xact_lock("));
        assert!(
            sql.schema
                .contains("CREATE TABLE IF NOT EXISTS cryptopay_quarantine")
        );
        assert!(sql.record.starts_with("WITH incoming AS ("));
        assert!(sql.record.contains("$3::numeric") && sql.record.contains("$5::bytea"));
        assert!(sql.record.ends_with("SELECT decision FROM recorded_stale"));
        assert!(
            sql.quarantine
                .starts_with("INSERT INTO cryptopay_quarantine")
        );
        for statement in [
            &sql.check,
            &sql.writable,
            &sql.columns,
            &sql.record,
            &sql.quarantine,
        ] {
            assert!(
                !statement.contains("--") && !statement.contains(';'),
                "{statement}"
            );
        }
    }

    #[test]
    fn comments_are_cut_as_the_build_cuts_them() {
        assert_eq!(cut_comment("SELECT 1 -- one"), "SELECT 1");
        assert_eq!(cut_comment("SELECT '--x' --\tnote"), "SELECT '--x'");
        assert_eq!(
            cut_comment("SELECT 1--not a comment"),
            "SELECT 1--not a comment"
        );
        assert_eq!(cut_comment("  a  --"), "  a  --");
    }

    #[test]
    fn a_missing_section_is_named() {
        let text =
            "-- statement: schema\nCREATE TABLE t (a int);\n-- statement: check\nSELECT 1;\n";
        let error = Statements::parse(text).unwrap_err();
        assert!(error.contains("\"-- statement: writable\""), "{error}");
    }
}
