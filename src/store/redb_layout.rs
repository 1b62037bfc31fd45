//! The layout upgrade of a store file written before summaries existed
//! (layout 1): every record gets an empty summary, so that start-up can read
//! summaries alone. Done once, in the open's own transaction; a file already
//! at [`LAYOUT_VERSION`] is left as it is.

use super::{
    INDEX, INDEX_SEGMENTS, LAYOUT, LAYOUT_VERSION, MESSAGES, RedbStore, SEGMENTS, segment,
};
use crate::store::StoreError;
use redb::{ReadableTable, WriteTransaction};

impl RedbStore {
    /// Brings the file open in `tx` to [`LAYOUT_VERSION`]: an empty summary
    /// for each single record without one, a summaries value of empty
    /// summaries for each segment without one. Errors: a table cannot be
    /// read or written, a segment is damaged ([`StoreError::Corrupt`]).
    pub(super) fn upgrade_layout(&self, tx: &WriteTransaction) -> Result<(), StoreError> {
        let mut layout = tx.open_table(LAYOUT).map_err(self.fail("open table"))?;
        let version = layout
            .get("version")
            .map_err(self.fail("read"))?
            .map(|v| v.value());
        if version == Some(LAYOUT_VERSION) {
            return Ok(());
        }
        let messages = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
        let mut index = tx.open_table(INDEX).map_err(self.fail("open table"))?;
        let mut upgraded = 0usize;
        for row in messages.iter().map_err(self.fail("scan"))? {
            let (k, _) = row.map_err(self.fail("read"))?;
            if index.get(k.value()).map_err(self.fail("read"))?.is_none() {
                index
                    .insert(k.value(), &[][..])
                    .map_err(self.fail("insert summary"))?;
                upgraded += 1;
            }
        }
        let segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
        let mut summaries = tx
            .open_table(INDEX_SEGMENTS)
            .map_err(self.fail("open table"))?;
        for row in segments.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let seg = k.value();
            if summaries.get(seg).map_err(self.fail("read"))?.is_some() {
                continue;
            }
            let entries = segment::entries(v.value()).map_err(|e| StoreError::Corrupt {
                op: format!("{}: upgrade", self.path.display()),
                key: Some(seg),
                detail: format!("segment {seg}, {e}"),
            })?;
            let mut value = vec![0u8; entries.len() * segment::ENTRY_HEADER];
            let mut rest: &mut [u8] = &mut value;
            for (key, _) in &entries {
                rest = segment::write_entry(rest, *key, &[])
                    .ok_or_else(|| self.refused("upgrade", "summaries exceed their size".into()))?;
            }
            summaries
                .insert(seg, value.as_slice())
                .map_err(self.fail("insert summaries"))?;
            upgraded += entries.len();
        }
        layout
            .insert("version", LAYOUT_VERSION)
            .map_err(self.fail("insert"))?;
        if upgraded > 0 {
            tracing::info!(store = %self.path.display(), records = upgraded, "store file upgraded: records written before summaries existed have empty ones");
        }
        Ok(())
    }
}
