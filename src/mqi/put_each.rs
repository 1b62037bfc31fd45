//! Puts to a destination list where each destination succeeds or fails on
//! its own: IBM MQ "Distribution lists" with response records (MQRR), where
//! an MQPUT to a list completes for some queues and not others (MQCC_WARNING,
//! MQRC_MULTIPLE_REASONS) and the response record of each destination holds
//! its own reason. [`Mqi::put_many`] is the all-or-nothing form.

use super::{Mqi, Object, Outgoing};
use crate::qmgr::{PutOptions, PutResult, QmError};

impl Mqi {
    /// Puts `msg` to every object of `objs`, each destination on its own
    /// (before_put once per destination, as [`Mqi::put_many`]), in one private
    /// unit of work committed at the end: the copies that could be put are
    /// stored together (one store transaction), a destination that refuses
    /// its copy (2053 MQRC_Q_FULL, 2085 MQRC_UNKNOWN_OBJECT_NAME, an exit's
    /// reason, ...) gets its error in its response record and does not stop
    /// the others. `pmo.uow` is ignored: the unit of work is always private.
    ///
    /// Returns one result per destination, in the order of `objs`. Errors
    /// (every record then fails with it): the unit of work cannot be begun or
    /// committed (e.g. 2161 MQRC_Q_MGR_QUIESCING, a store failure).
    pub fn put_many_each_now(
        &self,
        objs: &[Object],
        msg: &Outgoing,
        pmo: PutOptions,
    ) -> Vec<Result<PutResult, QmError>> {
        let uow = match self.qm.begin_uow(None, None) {
            Ok(id) => id,
            Err(e) => return objs.iter().map(|_| Err(e.clone())).collect(),
        };
        let in_uow = PutOptions {
            uow: Some(uow),
            ..pmo
        };
        let results: Vec<Result<PutResult, QmError>> = objs
            .iter()
            .map(|obj| self.put_now(obj, msg.clone(), in_uow.clone()))
            .collect();
        if results.iter().all(|r| r.is_err()) {
            let _ = self.qm.backout(uow);
            return results;
        }
        match self.qm.commit(uow) {
            Ok(()) => results,
            Err(e) => {
                let e = QmError::new(
                    e.mqrc,
                    format!(
                        "put to {} destinations not committed: {}",
                        objs.len(),
                        e.message
                    ),
                );
                objs.iter().map(|_| Err(e.clone())).collect()
            }
        }
    }

    /// [`Mqi::put_many_each_now`] on the blocking pool.
    pub async fn put_many_each(
        &self,
        objs: &[Object],
        msg: Outgoing,
        pmo: PutOptions,
    ) -> Vec<Result<PutResult, QmError>> {
        let (me, objs2) = (self.clone(), objs.to_vec());
        let n = objs.len();
        match Mqi::blocking(move || Ok(me.put_many_each_now(&objs2, &msg, pmo))).await {
            Ok(r) => r,
            Err(e) => (0..n).map(|_| Err(e.clone())).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{GetMode, GetRequest, QueueExits};
    use super::*;
    use crate::qmgr::QueueManager;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
    use std::sync::Arc;

    /// FULL holds one message (MAXDEPTH 1); A and B are unlimited.
    const CONFIG: &str = "
queues:
  - type: local
    name: A
  - type: local
    name: FULL
    max_depth: 1
  - type: local
    name: B
";

    #[tokio::test]
    async fn each_destination_succeeds_or_fails_on_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::config::Config::from_yaml(CONFIG, "test").unwrap();
        let store = Arc::new(crate::store::redb::RedbStore::open(dir.path()).unwrap());
        let qm = Arc::new(QueueManager::open(&config, store).unwrap());
        let exits = Arc::new(QueueExits::new(&Default::default(), "QM1"));
        let mqi = Mqi::new(qm, exits);
        let objs: Vec<Object> = ["A", "FULL", "B", "NOPE"]
            .iter()
            .map(|n| mqi.open(n, "").unwrap())
            .collect();
        let msg = Outgoing {
            md: Mqmd::default(),
            charset: Charset::Ascii,
            data: Bytes::from_static(b"copy"),
        };
        let r = mqi
            .put_many_each(&objs, msg.clone(), PutOptions::default())
            .await;
        assert!(r[0].is_ok() && r[1].is_ok() && r[2].is_ok());
        // IBM MQ "API reason codes": 2085 MQRC_UNKNOWN_OBJECT_NAME.
        assert_eq!(r[3].as_ref().unwrap_err().mqrc, Mqrc::UNKNOWN_OBJECT_NAME);
        let r = mqi.put_many_each(&objs, msg, PutOptions::default()).await;
        // 2053 MQRC_Q_FULL for FULL only; A and B get their second copy.
        assert_eq!(r[1].as_ref().unwrap_err().mqrc, Mqrc::Q_FULL);
        assert!(r[0].is_ok() && r[2].is_ok());
        assert_eq!(
            (mqi.depth("A"), mqi.depth("FULL"), mqi.depth("B")),
            (Some(2), Some(1), Some(2))
        );
        let got = mqi
            .get(
                &objs[0],
                GetRequest::default(),
                GetMode::Destructive { uow: None },
            )
            .await
            .unwrap();
        assert_eq!(&got.message.data[..], b"copy");
    }
}
