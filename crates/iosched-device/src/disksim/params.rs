//! DiskSim's parameter-file syntax, read into a tree that keeps where every value came from.
//!
//! The syntax (DiskSim 4.0 manual, section 3): `TYPE NAME { Key = value, ... }` blocks; values are numbers,
//! words, `[ lists ]`, nested `TYPE { ... }` blocks, or `source FILE` (the block a file defines); keys are
//! words with spaces and punctuation up to `=` ("Rotation speed (in rpms)"); `# comments`; at the top level
//! also `source FILE`, `instantiate [ names ] as TYPE` and `topology TYPE NAME [ ... ]`. `source` paths
//! resolve relative to the including file.

use iosched_core::input::read_text;
pub use iosched_core::input::{InputError as ParamError, Location as Loc};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Word(String),
    List(Vec<Spanned>),
    Block(Block),
}

impl Value {
    /// The value as an error message names it: "the number 3", "'word'", "a list", "a dm_disk block".
    pub fn describe(&self) -> String {
        match self {
            Value::Number(n) => format!("the number {n}"),
            Value::Word(w) => format!("'{w}'"),
            Value::List(_) => "a list".into(),
            Value::Block(b) => format!("a {} block", b.type_name),
        }
    }
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned {
    pub value: Value,
    pub loc: Loc,
}

/// `TYPE [NAME] { Key = value, ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub type_name: String,
    pub name: Option<String>,
    pub loc: Loc,
    pub params: Vec<(String, Spanned)>,
}

/// A whole parameter file with its includes.
#[derive(Clone, Debug, Default)]
pub struct ParamFile {
    pub blocks: Vec<Block>,
    /// (instance names, type name) from `instantiate`.
    pub instances: Vec<(Vec<String>, String, Loc)>,
}

impl ParamFile {
    /// The block named `name`.
    pub fn block_named(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name.as_deref() == Some(name))
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    LOpen,
    LClose,
    Comma,
    Eq,
    Word(String),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Open => "'{'".into(),
            Tok::Close => "'}'".into(),
            Tok::LOpen => "'['".into(),
            Tok::LClose => "']'".into(),
            Tok::Comma => "','".into(),
            Tok::Eq => "'='".into(),
            Tok::Word(w) => format!("'{w}'"),
        }
    }
}

struct Lexer {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    file: PathBuf,
    last_line: usize,
}

fn lex(text: &str) -> Vec<(Tok, usize)> {
    let mut toks = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let mut word = String::new();
        let flush = |word: &mut String, toks: &mut Vec<(Tok, usize)>| {
            if !word.is_empty() {
                toks.push((Tok::Word(std::mem::take(word)), i + 1));
            }
        };
        for c in line.chars() {
            let punct = match c {
                '{' => Some(Tok::Open),
                '}' => Some(Tok::Close),
                '[' => Some(Tok::LOpen),
                ']' => Some(Tok::LClose),
                ',' => Some(Tok::Comma),
                '=' => Some(Tok::Eq),
                _ => None,
            };
            if let Some(p) = punct {
                flush(&mut word, &mut toks);
                toks.push((p, i + 1));
            } else if c.is_whitespace() {
                flush(&mut word, &mut toks);
            } else {
                word.push(c);
            }
        }
        flush(&mut word, &mut toks);
    }
    toks
}

impl Lexer {
    fn loc(&self) -> Loc {
        let line = self.toks.get(self.pos).map_or(self.last_line, |(_, l)| *l);
        Loc { file: self.file.display().to_string(), line }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn peek2(&self) -> Option<&Tok> {
        self.toks.get(self.pos + 1).map(|(t, _)| t)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        t
    }

    fn err(&self, message: String) -> ParamError {
        ParamError { location: self.loc(), message }
    }

    fn found(&self) -> String {
        self.peek().map_or("the end of the file".to_string(), Tok::describe)
    }

    fn expect(&mut self, want: Tok, what: &str) -> Result<(), ParamError> {
        if self.peek() == Some(&want) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(format!("expected {what}, found {}", self.found())))
        }
    }

    fn word(&mut self, what: &str) -> Result<String, ParamError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err(format!("expected {what}, found {}", self.found()))),
        }
    }
}

/// Read `path` and everything it sources.
pub fn read_file(path: &Path) -> Result<ParamFile, ParamError> {
    let mut out = ParamFile::default();
    read_into(path, &mut out, 0)?;
    Ok(out)
}

/// The text of `path`; an error is placed at `from` (the line that sourced it) when there is one.
fn open(path: &Path, from: Option<&Loc>) -> Result<String, ParamError> {
    read_text(path, &path.display().to_string()).map_err(|e| match from {
        Some(loc) => ParamError::new(loc.clone(), e.message),
        None => e,
    })
}

fn lexer_for(path: &Path, text: &str) -> Lexer {
    let toks = lex(text);
    let last_line = text.lines().count().max(1);
    Lexer { toks, pos: 0, file: path.to_path_buf(), last_line }
}

/// A `source` path, relative to the including file's folder.
pub(crate) fn resolve(including: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        including.parent().unwrap_or(Path::new(".")).join(p)
    }
}

const MAX_SOURCE_DEPTH: usize = 16;

fn read_into(path: &Path, out: &mut ParamFile, depth: usize) -> Result<(), ParamError> {
    let text = open(path, None)?;
    let mut lx = lexer_for(path, &text);
    while lx.peek().is_some() {
        let head = lx.word("a block definition, 'source', 'instantiate' or 'topology'")?;
        match head.as_str() {
            "source" => {
                let loc = lx.loc();
                let name = lx.word("a file name after 'source'")?;
                if depth >= MAX_SOURCE_DEPTH {
                    return Err(ParamError { location: loc, message: "'source' nested too deeply (a loop?)".into() });
                }
                let included = resolve(path, &name);
                if !included.is_file() {
                    return Err(ParamError {
                        location: loc,
                        message: format!("cannot read {}: no such file", included.display()),
                    });
                }
                read_into(&included, out, depth + 1)?;
            }
            "instantiate" => {
                let loc = lx.loc();
                lx.expect(Tok::LOpen, "'[' after 'instantiate'")?;
                let mut names = Vec::new();
                loop {
                    match lx.next() {
                        Some(Tok::Word(w)) => names.push(w),
                        Some(Tok::Comma) => {}
                        Some(Tok::LClose) => break,
                        _ => {
                            return Err(ParamError {
                                location: loc,
                                message: "expected names and ']' in 'instantiate'".into(),
                            })
                        }
                    }
                }
                let as_word = lx.word("'as'")?;
                if as_word != "as" {
                    return Err(lx.err(format!("expected 'as', found '{as_word}'")));
                }
                let ty = lx.word("a type name after 'as'")?;
                out.instances.push((names, ty, loc));
            }
            "topology" => {
                skip_topology(&mut lx)?;
            }
            type_name => {
                let loc = lx.loc();
                let name = lx.word(&format!("a name after '{type_name}'"))?;
                lx.expect(Tok::Open, &format!("'{{' after '{type_name} {name}'"))?;
                let params = read_params(&mut lx, path, depth)?;
                out.blocks.push(Block { type_name: type_name.to_string(), name: Some(name), loc, params });
            }
        }
    }
    Ok(())
}

fn skip_topology(lx: &mut Lexer) -> Result<(), ParamError> {
    // topology TYPE NAME [ (TYPE NAME [ ... ])* ]
    let _ty = lx.word("a type after 'topology'")?;
    let _name = lx.word("a name in the topology")?;
    lx.expect(Tok::LOpen, "'[' in the topology")?;
    let mut depth = 1;
    while depth > 0 {
        match lx.next() {
            Some(Tok::LOpen) => depth += 1,
            Some(Tok::LClose) => depth -= 1,
            Some(_) => {}
            None => return Err(lx.err("the topology is not closed: expected ']'".into())),
        }
    }
    Ok(())
}

/// `Key = value, ...` up to the closing brace (consumed).
fn read_params(lx: &mut Lexer, path: &Path, depth: usize) -> Result<Vec<(String, Spanned)>, ParamError> {
    let mut params = Vec::new();
    loop {
        match lx.peek() {
            Some(Tok::Close) => {
                lx.pos += 1;
                return Ok(params);
            }
            Some(Tok::Comma) => {
                lx.pos += 1;
            }
            Some(Tok::Word(_)) => {
                let mut key_words = Vec::new();
                while let Some(Tok::Word(w)) = lx.peek() {
                    key_words.push(w.clone());
                    lx.pos += 1;
                }
                let key = key_words.join(" ");
                lx.expect(Tok::Eq, &format!("'=' after '{key}'"))?;
                let value = read_value(lx, path, depth)?;
                params.push((key, value));
                match lx.peek() {
                    Some(Tok::Comma) | Some(Tok::Close) => {}
                    _ => {
                        return Err(lx.err(format!(
                            "expected ',' or '}}' after the value of '{}', found {}",
                            params.last().map_or("", |(k, _)| k.as_str()),
                            lx.found()
                        )))
                    }
                }
            }
            None => return Err(lx.err("the block is not closed: expected '}'".into())),
            Some(_) => return Err(lx.err(format!("expected a parameter name or '}}', found {}", lx.found()))),
        }
    }
}

fn read_value(lx: &mut Lexer, path: &Path, depth: usize) -> Result<Spanned, ParamError> {
    let loc = lx.loc();
    match lx.peek().cloned() {
        Some(Tok::LOpen) => {
            lx.pos += 1;
            let mut items = Vec::new();
            loop {
                match lx.peek() {
                    Some(Tok::LClose) => {
                        lx.pos += 1;
                        break;
                    }
                    Some(Tok::Comma) => lx.pos += 1,
                    None => return Err(lx.err("the list is not closed: expected ']'".into())),
                    _ => items.push(read_value(lx, path, depth)?),
                }
            }
            Ok(Spanned { value: Value::List(items), loc })
        }
        Some(Tok::Word(w)) if w == "source" && matches!(lx.peek2(), Some(Tok::Word(_))) => {
            lx.pos += 1;
            let name = lx.word("a file name after 'source'")?;
            if depth >= MAX_SOURCE_DEPTH {
                return Err(ParamError { location: loc, message: "'source' nested too deeply (a loop?)".into() });
            }
            let included = resolve(path, &name);
            let text = open(&included, Some(&loc))?;
            let mut inner = lexer_for(&included, &text);
            let type_name = inner.word("a block definition")?;
            let block_loc = inner.loc();
            // A sourced block may go unnamed (DIXtrac's layout files begin "dm_layout_g4 {").
            let name = if inner.peek() == Some(&Tok::Open) {
                None
            } else {
                Some(inner.word(&format!("a name or '{{' after '{type_name}'"))?)
            };
            let what = name.as_ref().map_or(type_name.clone(), |n| format!("{type_name} {n}"));
            inner.expect(Tok::Open, &format!("'{{' after '{what}'"))?;
            let params = read_params(&mut inner, &included, depth + 1)?;
            if inner.peek().is_some() {
                return Err(
                    inner.err(format!("expected the end of the file after block '{what}', found {}", inner.found()))
                );
            }
            Ok(Spanned { value: Value::Block(Block { type_name, name, loc: block_loc, params }), loc })
        }
        Some(Tok::Word(w)) => {
            lx.pos += 1;
            if lx.peek() == Some(&Tok::Open) {
                lx.pos += 1;
                let params = read_params(lx, path, depth)?;
                return Ok(Spanned {
                    value: Value::Block(Block { type_name: w, name: None, loc: loc.clone(), params }),
                    loc,
                });
            }
            let value = match w.parse::<f64>() {
                Ok(n) if n.is_finite() => Value::Number(n),
                _ => Value::Word(w),
            };
            Ok(Spanned { value, loc })
        }
        _ => Err(lx.err(format!("expected a value, found {}", lx.found()))),
    }
}

/// Typed access to a block's parameters, with errors that name file, line and key.
impl Block {
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(n) => format!("{} {n}", self.type_name),
            None => self.type_name.clone(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Spanned> {
        self.params.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v)
    }

    fn missing(&self, key: &str) -> ParamError {
        ParamError { location: self.loc.clone(), message: format!("{} has no '{key}'", self.display_name()) }
    }

    /// The value of `key` as `pick` reads it, or an error naming `what` was expected and what was found.
    fn typed<'a, T>(
        &'a self,
        key: &str,
        what: &str,
        pick: impl FnOnce(&'a Spanned) -> Option<T>,
    ) -> Result<T, ParamError> {
        let v = self.get(key).ok_or_else(|| self.missing(key))?;
        pick(v).ok_or_else(|| ParamError {
            location: v.loc.clone(),
            message: format!("{key}: expected {what}, found {}", v.value.describe()),
        })
    }

    pub fn number(&self, key: &str) -> Result<f64, ParamError> {
        self.typed(key, "a number", |v| match &v.value {
            Value::Number(n) => Some(*n),
            _ => None,
        })
    }

    pub fn number_or(&self, key: &str, default: f64) -> Result<f64, ParamError> {
        self.get(key).map_or(Ok(default), |_| self.number(key))
    }

    /// A number within `min..=max` (`unit` says what it measures, in the error): NaN, infinities and numbers out
    /// of range are refused with the line they are on.
    pub fn number_in(&self, key: &str, min: f64, max: f64, unit: &str) -> Result<f64, ParamError> {
        let n = self.number(key)?;
        if n.is_finite() && n >= min && n <= max {
            return Ok(n);
        }
        let loc = self.get(key).map(|v| v.loc.clone()).unwrap_or(self.loc.clone());
        let found = if n.abs() >= 1e9 { format!("{n:e}") } else { n.to_string() };
        Err(ParamError { location: loc, message: format!("{key}: expected {min} to {max} {unit}, found {found}") })
    }

    pub fn number_in_or(&self, key: &str, min: f64, max: f64, unit: &str, default: f64) -> Result<f64, ParamError> {
        self.get(key).map_or(Ok(default), |_| self.number_in(key, min, max, unit))
    }

    /// An integer within `min..=max`.
    pub fn int(&self, key: &str, min: i64, max: i64) -> Result<i64, ParamError> {
        let n = self.number(key)?;
        let loc = self.get(key).map(|v| v.loc.clone()).unwrap_or(self.loc.clone());
        if n.fract() != 0.0 || n < min as f64 || n > max as f64 {
            return Err(ParamError {
                location: loc,
                message: format!("{key}: expected an integer from {min} to {max}, found {n}"),
            });
        }
        Ok(n as i64)
    }

    pub fn int_or(&self, key: &str, min: i64, max: i64, default: i64) -> Result<i64, ParamError> {
        self.get(key).map_or(Ok(default), |_| self.int(key, min, max))
    }

    pub fn word(&self, key: &str) -> Result<(&str, &Loc), ParamError> {
        self.typed(key, "a word", |v| match &v.value {
            Value::Word(w) => Some((w.as_str(), &v.loc)),
            _ => None,
        })
    }

    pub fn block(&self, key: &str) -> Result<&Block, ParamError> {
        self.typed(key, "a block", |v| match &v.value {
            Value::Block(b) => Some(b),
            _ => None,
        })
    }

    /// A nested block of type `type_name` (the only one the model supports there).
    pub fn typed_block(&self, key: &str, type_name: &str) -> Result<&Block, ParamError> {
        let b = self.block(key)?;
        if b.type_name != type_name {
            return Err(ParamError::new(
                b.loc.clone(),
                format!("{key}: expected a {type_name} block, found {} (not supported)", b.type_name),
            ));
        }
        Ok(b)
    }

    pub fn list(&self, key: &str) -> Result<&[Spanned], ParamError> {
        self.typed(key, "a list [ ... ]", |v| match &v.value {
            Value::List(items) => Some(items.as_slice()),
            _ => None,
        })
    }

    /// A list of integers, each within `min..=max`.
    pub fn int_list(&self, key: &str, min: i64, max: i64) -> Result<Vec<i64>, ParamError> {
        self.list(key)?
            .iter()
            .map(|item| match &item.value {
                Value::Number(n) if n.fract() == 0.0 && *n >= min as f64 && *n <= max as f64 => Ok(*n as i64),
                other => Err(ParamError {
                    location: item.loc.clone(),
                    message: format!("{key}: expected integers from {min} to {max}, found {}", other.describe()),
                }),
            })
            .collect()
    }

    /// Keys present that are not in `known`, with their locations (for warnings).
    pub fn unknown_keys(&self, known: &[&str]) -> Vec<(String, Loc)> {
        self.params
            .iter()
            .filter(|(k, _)| !known.iter().any(|n| n.eq_ignore_ascii_case(k)))
            .map(|(k, v)| (k.clone(), v.loc.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn tmp(name: &str) -> PathBuf {
        iosched_test_data::scratch(&format!("params-{name}"))
    }

    #[test]
    fn blocks_lists_sources_and_keys_with_spaces() {
        let d = tmp("ok");
        write(&d, "m.model", "dm_disk M {\n  Number of data surfaces = 2,\n  Zones = [ z { First cylinder number = 0 }, z { First cylinder number = 5 } ]\n}\n");
        let main = write(
            &d,
            "a.parv",
            "# comment\ndisksim_disk D {\n Model = source m.model,\n Rotation speed (in rpms) = 7200, Add. write settling delay = 0.5,\n Access time type = trackSwitchPlusRotation\n}\ninstantiate [ disk0 ] as D\ntopology disksim_iodriver driver0 [ disksim_bus bus0 [ ] ]\n",
        );
        let f = read_file(&main).unwrap();
        let disk = f.block_named("D").unwrap();
        assert_eq!(disk.number("Rotation speed (in rpms)").unwrap(), 7200.0);
        assert_eq!(disk.number("Add. write settling delay").unwrap(), 0.5);
        assert_eq!(disk.word("Access time type").unwrap().0, "trackSwitchPlusRotation");
        let model = disk.block("Model").unwrap();
        assert_eq!(model.int("Number of data surfaces", 1, 100).unwrap(), 2);
        assert_eq!(model.list("Zones").unwrap().len(), 2);
        assert_eq!(model.loc.file, d.join("m.model").display().to_string());
        assert_eq!(f.instances[0].0, vec!["disk0".to_string()]);
    }

    #[test]
    fn errors_name_file_line_and_expectation() {
        let d = tmp("bad");
        let cases = [
            ("disksim_disk D {\n A = 1\n B = 2 }\n", ":3: expected ',' or '}' after the value of 'A'"),
            ("disksim_disk D {\n A = 1,\n", ":2: the block is not closed"),
            ("disksim_disk D {\n A = [ 1, 2 \n}\n", ":3: expected a value, found '}'"),
            ("disksim_disk {\n}\n", ":1: expected a name after 'disksim_disk', found '{'"),
            ("source nothere.model\n", "cannot read"),
            ("disksim_disk D { M = source missing.model }\n", ":1: cannot read"),
        ];
        for (text, want) in cases {
            let p = write(&d, "x.parv", text);
            let err = read_file(&p).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(err.contains("x.parv") || err.contains("nothere"), "{err}");
        }
        let p = write(&d, "t.parv", "b B { N = x, L = [ 1, q ] }\n");
        let f = read_file(&p).unwrap();
        let b = f.block_named("B").unwrap();
        assert!(b.number("N").unwrap_err().to_string().contains("t.parv:1: N: expected a number, found 'x'"));
        assert!(b.int_list("L", 0, 9).unwrap_err().to_string().contains("L: expected integers"));
        assert!(b.number("Z").unwrap_err().to_string().contains("b B has no 'Z'"));
        let p = write(&d, "u.parv", "b B { L = dm_layout_g2 { x = 1 } }\n");
        let f = read_file(&p).unwrap();
        let err = f.block_named("B").unwrap().typed_block("L", "dm_layout_g1").unwrap_err().to_string();
        assert!(
            err.contains("u.parv:1: L: expected a dm_layout_g1 block, found dm_layout_g2 (not supported)"),
            "{err}"
        );
    }
}
