//! The knowledge base of known DataLoader failures, and the matcher that finds them in crash
//! output (`explain`).
