//! Records the git revision `tirc --version` prints.

fn main() {
    let revision = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|revision| !revision.is_empty());
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|output| output.status.success() && !output.stdout.is_empty());
    let text = match revision {
        Some(revision) if dirty => format!("git {revision}, modified"),
        Some(revision) => format!("git {revision}"),
        None => "git revision unknown".to_string(),
    };
    println!("cargo:rustc-env=TIRC_GIT_REVISION={text}");
    // A new commit moves HEAD (or the branch it names).
    for path in ["../.git/HEAD", "../.git/refs/heads", "../.git/index"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
