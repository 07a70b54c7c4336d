// A robot of the replay as a three.js scene graph: per joint, its placement in the parent body
// then its motion X_J(q), so that a body's pose is parent · placement · X_J(q) (the model's
// forward kinematics, docs/viewer.md). Geometry: capsules to the child joints and a box of the
// body's equivalent inertia, or the URDF's primitives (box, cylinder, sphere) on the bodies
// that have them.
import * as THREE from 'three';

const Y = new THREE.Vector3(0, 1, 0);
const palette = [0x4f7cac, 0xc0504d, 0x9bbb59, 0x8064a2, 0xf79646, 0x4bacc6];

// A URDF primitive in its body's frame; a cylinder's axis is z in URDF and y in three.js.
function primitive(v, material) {
  const [a, b, c] = v.size;
  const geometry = v.shape === 'box' ? new THREE.BoxGeometry(a, b, c)
    : v.shape === 'cylinder' ? new THREE.CylinderGeometry(a, a, b, 24).rotateX(Math.PI / 2)
      : new THREE.SphereGeometry(a, 20, 14);
  const mesh = new THREE.Mesh(geometry, material);
  mesh.position.set(...v.p);
  mesh.quaternion.set(...v.q);
  mesh.name = `visual ${v.link}`;
  return mesh;
}

function capsule(a, b, r, material) {
  const pa = new THREE.Vector3(...a), pb = new THREE.Vector3(...b);
  const d = pb.clone().sub(pa);
  const len = d.length();
  const mesh = new THREE.Mesh(len > 1e-6 ? new THREE.CapsuleGeometry(r, len, 4, 12) : new THREE.SphereGeometry(r, 12, 8),
                              material);
  mesh.position.copy(pa).addScaledVector(d, 0.5);
  if (len > 1e-6) mesh.quaternion.setFromUnitVectors(Y, d.normalize());
  return mesh;
}

export class Robot {
  constructor(model, { ghost = false, colour = 0 } = {}) {
    this.model = model;
    this.root = new THREE.Group();
    this.root.name = ghost ? 'ghost' : 'robot';
    this.motion = [];
    this.axes = new THREE.Group();
    this.frames = new THREE.Group();
    const opacity = ghost ? 0.3 : 1.0;
    const link = new THREE.MeshStandardMaterial({ color: palette[colour % palette.length], roughness: 0.55,
                                                  metalness: 0.1, transparent: ghost, opacity, depthWrite: !ghost });
    const box = new THREE.MeshStandardMaterial({ color: 0xdddddd, transparent: true, opacity: ghost ? 0.08 : 0.22,
                                                 depthWrite: false });
    this.materials = [link, box];
    model.joints.forEach((j, i) => {
      const placement = new THREE.Group();
      placement.position.set(...j.placement.p);
      placement.quaternion.set(...j.placement.q);
      const motion = new THREE.Group();
      motion.name = j.name;
      placement.add(motion);
      (j.parent < 0 ? this.root : this.motion[j.parent]).add(placement);
      this.motion[i] = motion;
      const axis = new THREE.ArrowHelper(new THREE.Vector3(...j.axis), new THREE.Vector3(), 0.12, 0xffaa00, 0.03, 0.02);
      axis.visible = false;
      placement.add(axis);
      this.axes.add(new THREE.Object3D());  // keeps one entry per joint for toggling
      this.axes.children[i].userData.helper = axis;
      j.axisVec = new THREE.Vector3(...j.axis);
    });
    const drawn = new Set();
    for (const v of model.visuals ?? []) {
      let material = link;
      if (v.rgba) {
        material = link.clone();
        material.color.setRGB(v.rgba[0], v.rgba[1], v.rgba[2]);
        if (!ghost && v.rgba[3] < 1) Object.assign(material, { transparent: true, opacity: v.rgba[3] });
        this.materials.push(material);
      }
      (v.joint < 0 ? this.root : this.motion[v.joint]).add(primitive(v, material));
      drawn.add(v.joint);
    }
    for (const b of model.bodies) {
      const parent = this.motion[b.joint];
      if (!drawn.has(b.joint)) for (const c of b.capsules) parent.add(capsule(c.a, c.b, c.r, link));
      if (b.box && !ghost) {
        const m = new THREE.Mesh(new THREE.BoxGeometry(...b.box.size.map((s) => Math.max(s, 1e-3))), box);
        m.position.set(...b.box.p);
        m.quaternion.set(...b.box.q);
        m.name = 'inertia';
        parent.add(m);
      }
    }
    this.frameObjects = {};
    for (const f of model.frames) {
      const o = new THREE.Group();
      o.position.set(...f.p);
      o.quaternion.set(...f.q);
      o.name = f.name;
      const helper = new THREE.AxesHelper(0.08);
      helper.visible = false;
      o.add(helper);
      o.userData.helper = helper;
      (f.joint < 0 ? this.root : this.motion[f.joint]).add(o);
      this.frameObjects[f.name] = o;
    }
  }

  // Joint coordinates of row r of q (nq floats per row).
  setRow(q, nq, r) {
    const o = r * nq;
    this.model.joints.forEach((j, i) => {
      const m = this.motion[i], k = o + j.iq;
      switch (j.type) {
        case 'revolute':
        case 'continuous':
          m.quaternion.setFromAxisAngle(j.axisVec, q[k]);
          break;
        case 'prismatic':
          m.position.copy(j.axisVec).multiplyScalar(q[k]);
          break;
        case 'spherical':
          m.quaternion.set(q[k], q[k + 1], q[k + 2], q[k + 3]).normalize();
          break;
        case 'freeflyer':
          m.position.set(q[k], q[k + 1], q[k + 2]);
          m.quaternion.set(q[k + 3], q[k + 4], q[k + 5], q[k + 6]).normalize();
          break;
        default:
          throw new Error(`joint '${j.name}' of unknown type '${j.type}'`);
      }
    });
    this.root.updateMatrixWorld(true);
  }

  showAxes(on) { for (const a of this.axes.children) a.userData.helper.visible = on; }
  showFrames(on) { for (const f of Object.values(this.frameObjects)) f.userData.helper.visible = on; }

  framePosition(name) {
    const o = this.frameObjects[name];
    return o ? o.getWorldPosition(new THREE.Vector3()) : null;
  }
}
